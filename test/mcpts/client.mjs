// The official TypeScript MCP client against engram's /mcp: configuration only
// (the endpoint, the key, the default user), no engram-specific code. It prints one
// JSON object with what each step returned; test/e2e/mcpts_test.go checks it.
//
//   node client.mjs <endpoint> <api key> <user>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [endpoint, apiKey, user] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${apiKey}`, "X-Engram-User": user } },
});
const client = new Client({ name: "engram-ts-e2e", version: "1.0.0" });
await client.connect(transport);

const out = {
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
  tools: (await client.listTools()).tools.map((t) => t.name),
  calls: {},
};
const call = async (label, name, args) => {
  const res = await client.callTool({ name, arguments: args });
  out.calls[label] = { isError: res.isError ?? false, text: res.content[0]?.text, structured: res.structuredContent };
};
await call("save", "memory_save", { key: "Diet", type: "fact", content: "Is vegetarian" });
await call("append", "memory_append", { key: "diet", content: "and avoids eggs" });
await call("save_tea", "memory_save", { key: "tea", type: "preference", content: "Drinks oolong tea every morning" });
await call("list", "memory_list", {});
await call("search", "memory_search", { query: "which tea does she drink", mode: "lexical" });
await call("delete", "memory_delete", { key: "tea" });
await call("bad_type", "memory_save", { key: "nick", type: "profile", content: "x" });

out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const resource = await client.readResource({ uri: `engram://users/${encodeURIComponent(user)}/memories` });
out.resource = JSON.parse(resource.contents[0].text);

await client.close();
console.log(JSON.stringify(out));
