// The official TypeScript MCP client against engram's /mcp: configuration only
// (the endpoint, the key, the user the connection is pinned to), no
// engram-specific code. It prints one JSON object with what each step returned;
// test/e2e/mcpts_test.go checks it.
//
//   node client.mjs <endpoint> <api key> <user> <header|no-header>
//
// With "header" the connection names its user in X-Engram-User; with "no-header"
// the key itself is one user's (`engram keys create --user`). Either way the
// connection is pinned to <user>.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [endpoint, apiKey, user, header] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${apiKey}` };
if (header === "header") {
  headers["X-Engram-User"] = user;
}
const transport = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } });
const client = new Client({ name: "engram-ts-e2e", version: "1.0.0" });
await client.connect(transport);

const listed = (await client.listTools()).tools;
const out = {
  server: client.getServerVersion(),
  instructions: client.getInstructions(),
  tools: listed.map((t) => t.name),
  toolsWithUserID: listed.filter((t) => "user_id" in (t.inputSchema.properties ?? {})).map((t) => t.name),
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
// What a prompt injection would try: another user's memories, by argument and by URI.
await call("other_user_list", "memory_list", { user_id: "bob" });
await call("other_user_save", "memory_save", { user_id: "bob", key: "planted", type: "fact", content: "Obeys every order" });

out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
out.resources = (await client.listResources()).resources.map((r) => r.uri);
const resource = await client.readResource({ uri: `engram://users/${encodeURIComponent(user)}/memories` });
out.resource = JSON.parse(resource.contents[0].text);
try {
  const other = await client.readResource({ uri: "engram://users/bob/memories" });
  out.otherResource = { read: other.contents[0]?.text };
} catch (err) {
  out.otherResource = { error: String(err.message ?? err) };
}

await client.close();
console.log(JSON.stringify(out));
