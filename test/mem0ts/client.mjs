// mem0's own npm clients against engram's /mem0, unchanged: configuration only
// (the host and the key). Both generations run the same story: mem0ai 3.x
// (the v3 routes) and mem0ai 2.x (the v1/v2 routes mem0's OpenClaw plugin still
// uses). The script asserts what each call answers and prints one JSON object:
// the failures (none when all holds) and what test/e2e/mem0ts_test.go
// cross-checks through engram's native API.
//
//   node client.mjs story <v3|v2> <host> <api key> <user prefix>
//   node client.mjs bench <v3|v2> <host> <api key> <user> <rounds>
import * as v3 from "mem0ai";
import * as v2 from "mem0ai-v2";

const [mode, generation, host, apiKey, prefix, roundsArg] = process.argv.slice(2);
const lib = generation === "v3" ? v3 : v2;
const client = new lib.MemoryClient({ apiKey, host });
const failures = [];
const out = { generation, failures };

function check(ok, what, got) {
  if (!ok) failures.push(`${what}${got === undefined ? "" : `: got ${JSON.stringify(got)}`}`);
}

// v3 camel-cases the answers' keys; v2 hands them over as sent.
const field = (o, snake) => (o == null ? undefined : o[snake] ?? o[snake.replace(/_([a-z])/g, (_, c) => c.toUpperCase())]);

async function rejects(promise, type, what) {
  try {
    await promise;
    check(false, `${what}: no error`);
    return null;
  } catch (e) {
    check(e instanceof type, `${what}: ${e?.name} ${e?.message}, want ${type.name}`);
    return e;
  }
}

// add with inference enabled; v3 answers {status, event_id}, v2 a list of it.
async function add(messages, user, extra = {}) {
  if (generation === "v3") return client.add(messages, { userId: user, ...extra });
  const answer = await client.add(messages, { user_id: user, ...snake(extra) });
  return Array.isArray(answer) && answer.length === 1 && answer[0].status ? answer[0] : { status: "SUCCEEDED", results: answer };
}

function snake(o) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()), v]));
}

async function list(filters) {
  if (generation === "v3") return (await client.getAll({ filters })).results;
  return client.getAll({ filters, api_version: "v2" });
}

async function listUser(user) {
  if (generation === "v3") return (await client.getAll({ filters: { user_id: user } })).results;
  return client.getAll({ user_id: user }); // the v1 GET route
}

async function search(query, filters, extra = {}) {
  if (generation === "v3") return (await client.search(query, { filters, ...extra })).results;
  return client.search(query, { filters, api_version: "v2", ...snake(extra) });
}

// Neither client generation has a method for the add events, so they are read
// as mem0's own dashboard does, with the same key.
async function getJSON(path) {
  const r = await fetch(`${host}${path}`, { headers: { Authorization: `Token ${apiKey}` } });
  return r.json();
}

const event = (id) => getJSON(`/v1/event/${id}/`);

async function until(what, cond, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) {
      check(false, `timed out waiting for ${what}`);
      return null;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function story() {
  const alice = `${prefix}-alice`, bob = `${prefix}-bob`, carol = `${prefix}-carol`, dave = `${prefix}-dave`;
  const started = new Date(Date.now() - 60000).toISOString();

  await client.ping();
  const bad = new lib.MemoryClient({ apiKey: "not-a-key", host });
  const refused = await rejects(bad.ping(), lib.AuthenticationError, "a wrong key");
  check(refused?.message?.includes("Invalid API key"), "a wrong key's message", refused?.message);

  // infer:false stores each message as given, at once.
  const given = await add([{ role: "user", content: "I love hiking in the Alps" }], alice,
    { infer: false, agentId: "travel-agent", metadata: { source: "onboarding", priority: 2 } });
  check(given.status === "SUCCEEDED" && given.results?.length === 1, "add infer:false answers SUCCEEDED with one result", given);
  const hiking = given.results?.[0];
  check(hiking?.event === "ADD" && field(hiking, "data")?.memory === "I love hiking in the Alps", "add infer:false result", hiking);
  out.hikingId = hiking?.id;

  // An inferring add is an event that moves PENDING → SUCCEEDED with what it extracted.
  const pending = await add([{ role: "user", content: "I am vegetarian." }, { role: "assistant", content: "Noted!" }], alice,
    { agentId: "diet-coach", runId: `${prefix}-run-1`, metadata: { channel: "chat" } });
  const eventId = field(pending, "event_id");
  check(pending.status === "PENDING" && eventId, "an inferring add answers PENDING with an event id", pending);
  const done = await until("the add's event to succeed", async () => {
    const e = await event(eventId);
    return e.status === "SUCCEEDED" ? e : null;
  });
  const diet = done?.results?.find((r) => r.data?.memory?.toLowerCase().includes("vegetarian"));
  check(diet?.event === "ADD", "the event's results hold the extracted memory", done);
  out.dietId = diet?.id;

  // Every add is an event: the user's are listed newest first, each as GET
  // /v1/event/{id}/ answers it, a page at a time.
  const events = await getJSON(`/v1/events/?user_id=${encodeURIComponent(alice)}`);
  check(events.count === 2 && events.results?.length === 2 && events.next === null, "alice's events are her two adds", events);
  const [newest, oldest] = events.results ?? [];
  check(newest?.id === eventId && newest.status === "SUCCEEDED" && newest.event_type === "ADD" && newest.user_id === alice &&
    newest.results?.some((r) => r.id === out.dietId), "the newest event is the inferring add with what it extracted", newest);
  check(oldest?.status === "SUCCEEDED" && oldest.results?.length === 1 && oldest.results[0].id === out.hikingId &&
    oldest.results[0].event === "ADD", "the oldest event is the infer:false add with the memory it wrote", oldest);
  const first = await getJSON(`/v1/events/?user_id=${encodeURIComponent(alice)}&page=1&page_size=1`);
  check(first.results?.length === 1 && first.results[0].id === eventId && first.next && first.previous === null,
    "a page of one event links to the next", first);
  const byID = await event(oldest?.id);
  check(byID.id === oldest?.id && byID.results?.[0]?.id === out.hikingId, "an infer:false add's event is read by its id", byID);
  const unknown = await getJSON("/v1/event/not-an-event/");
  check(typeof unknown.detail === "string" && unknown.detail.includes("not found"), "an unknown event is not found", unknown);

  // async_mode false waits for the extraction and answers its results.
  const waited = await add([{ role: "user", content: "I live in Porto." }], `${prefix}-erin`, { asyncMode: false });
  check(waited.status === "SUCCEEDED" && waited.results?.some((r) => r.event === "ADD" && r.data?.memory?.includes("Porto")),
    "async_mode false answers the extracted memory", waited);

  await add([{ role: "user", content: "I play chess on Sundays" }], bob, { infer: false });

  // Listed with their ids.
  const listed = await listUser(alice);
  const ids = listed.map((m) => m.id);
  check(ids.includes(out.hikingId) && ids.includes(out.dietId), "alice's listing holds both memories", ids);
  const listedHiking = listed.find((m) => m.id === out.hikingId);
  check(field(listedHiking, "user_id") === alice && listedHiking?.memory === "I love hiking in the Alps", "a listed memory's fields", listedHiking);
  check(field(listedHiking, "agent_id") === "travel-agent" && listedHiking?.metadata?.source === "onboarding" && listedHiking?.metadata?.priority === 2,
    "a memory added as given keeps the add's agent_id and metadata", listedHiking);
  const listedDiet = listed.find((m) => m.id === out.dietId);
  check(field(listedDiet, "agent_id") === "diet-coach" && field(listedDiet, "run_id") === `${prefix}-run-1` && listedDiet?.metadata?.channel === "chat",
    "an extracted memory carries every id and the metadata of its add", listedDiet);
  check((await list({ user_id: bob })).length === 1, "bob's listing holds his one memory");

  // AND(user_id, agent_id) finds what it names, in a listing and a search.
  const coached = await list({ AND: [{ user_id: alice }, { agent_id: "diet-coach" }] });
  check(coached.length === 1 && coached[0].id === out.dietId, "AND(user_id, agent_id) lists the agent's memory", coached.map((m) => m.memory));
  const coachedSearch = await search("vegetarian", { AND: [{ user_id: alice }, { agent_id: "diet-coach" }] });
  check(coachedSearch[0]?.id === out.dietId, "AND(user_id, agent_id) searches the agent's memory", coachedSearch.map((m) => m.memory));
  check((await search("vegetarian", { AND: [{ user_id: alice }, { agent_id: "travel-agent" }] })).length === 0,
    "AND(user_id, another agent) finds nothing");
  const tagged = await list({ AND: [{ user_id: alice }, { metadata: { source: "onboarding" } }] });
  check(tagged.length === 1 && tagged[0].id === out.hikingId, "a metadata filter", tagged.map((m) => m.memory));

  // Search: the right memory first, scores in [0, 1] best first, nothing of
  // another user, nothing for an unrelated query.
  const found = await search("where do I like hiking?", { user_id: alice });
  check(found[0]?.id === out.hikingId, "the hiking memory is found first", found.map((m) => m.memory));
  const scores = found.map((m) => m.score);
  check(scores.every((s) => s >= 0 && s <= 1) && scores.every((s, i) => i === 0 || scores[i - 1] >= s), "scores in [0,1], best first", scores);
  check((await search("where do I like hiking?", { user_id: bob })).length === 0, "bob finds nothing of alice's");
  check((await search("quantum chromodynamics lecture notes", { user_id: alice })).length === 0, "an unrelated query finds nothing");
  const chess = await search("chess", { OR: [{ user_id: alice }, { user_id: bob }] }, { topK: 5 });
  check(chess[0]?.memory === "I play chess on Sundays" && chess.length === 1, "an OR over two users searches both", chess.map((m) => m.memory));

  // A date filter.
  const recent = await list({ AND: [{ user_id: alice }, { created_at: { gte: started } }] });
  check(recent.length === 2, "created_at gte the start keeps both", recent.length);
  check((await list({ AND: [{ user_id: alice }, { created_at: { lt: "2000-01-01" } }] })).length === 0, "created_at before 2000 keeps none");
  const ambiguous = await rejects(list({ AND: [{ user_id: alice }], OR: [{ user_id: bob }] }), lib.ValidationError, "AND beside OR");
  check(ambiguous?.message?.includes("nest one in the other"), "AND beside OR says how to write it", ambiguous?.message);

  // get / update / history.
  const got = await client.get(out.hikingId);
  check(got.memory === "I love hiking in the Alps", "get", got);
  await client.update(out.hikingId, { text: "I love hiking in the Dolomites" });
  check((await client.get(out.hikingId)).memory === "I love hiking in the Dolomites", "get after update");
  const history = await client.history(out.hikingId);
  check(history.length === 2 && history[0].event === "ADD" && history[1].event === "UPDATE", "history is ADD then UPDATE", history.map((h) => h.event));
  check(field(history[1], "old_memory") === "I love hiking in the Alps" && field(history[1], "new_memory") === "I love hiking in the Dolomites",
    "the UPDATE has the old and new text", history[1]);
  await rejects(client.get("no-such-memory"), lib.MemoryNotFoundError, "an unknown id");

  // users.
  const users = await client.users();
  const aliceRow = users.results.find((u) => u.name === alice);
  check(aliceRow?.type === "user" && field(aliceRow, "total_memories") === 2, "users lists alice with 2 memories", aliceRow);
  const coach = users.results.find((u) => u.name === "diet-coach");
  check(coach?.type === "agent" && field(coach, "total_memories") >= 1, "users lists the agent her memory names", coach);

  // batch update and delete.
  const pair = await add([{ role: "user", content: "My cat is called Felix" }, { role: "user", content: "My dog is called Rex" }], alice, { infer: false });
  const [cat, dog] = pair.results.map((r) => r.id);
  await client.batchUpdate([{ memoryId: cat, text: "My cat is called Tom" }]);
  check((await client.get(cat)).memory === "My cat is called Tom", "batch update");
  await client.batchDelete([cat, dog]);
  await rejects(client.get(cat), lib.MemoryNotFoundError, "a batch-deleted memory");
  await rejects(client.get(dog), lib.MemoryNotFoundError, "the other batch-deleted memory");

  // delete: gone from get and from search.
  const deleted = await client.delete(out.dietId);
  check(typeof deleted.message === "string", "delete answers a message", deleted);
  await rejects(client.get(out.dietId), lib.MemoryNotFoundError, "a deleted memory");
  check(!(await search("vegetarian", { user_id: alice })).some((m) => m.id === out.dietId), "a deleted memory is not found by search");

  // delete_all of bob.
  await client.deleteAll(generation === "v3" ? { userId: bob } : { user_id: bob });
  check((await listUser(bob)).length === 0, "bob has no memories after delete_all");

  // delete_users: carol and dave are erased.
  await add([{ role: "user", content: "I live in Lyon" }], carol, { infer: false });
  await add([{ role: "user", content: "I live in Nice" }], dave, { infer: false });
  const erased = await client.deleteUser({ entity_id: carol, entity_type: "user" });
  out.carolJob = field(erased, "job_id");
  check(out.carolJob, "deleting a user answers its erasure job", erased);
  const gone = await client.deleteUsers(generation === "v3" ? { userId: dave } : { user_id: dave });
  check(gone.message === "Entity deleted successfully.", "deleteUsers", gone);
  check((await listUser(dave)).length === 0, "an erased user has no memories");

  // What engram does not do fails clearly.
  const hooks = await rejects(client.getWebhooks({ projectId: "default" }), lib.MemoryError, "webhooks");
  check(hooks?.message?.includes("not supported by engram"), "webhooks say they are not supported", hooks?.message);
}

async function bench() {
  const rounds = Number(roundsArg);
  const user = prefix;
  const time = async (f) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  const add = [], extract = [], find = [];
  for (let i = 0; i < rounds; i++) {
    const text = `Fact number ${i}: my favourite number is ${i * 7}`;
    add.push(await time(() => client.add([{ role: "user", content: text }], generation === "v3" ? { userId: user, infer: false } : { user_id: user, infer: false })));
    extract.push(await time(() => client.add([{ role: "user", content: `I moved to city ${i}.` }], generation === "v3" ? { userId: user } : { user_id: user })));
  }
  for (let i = 0; i < rounds; i++) {
    find.push(await time(() => client.search(`favourite number ${i * 7}`, generation === "v3" ? { filters: { user_id: user } } : { user_id: user })));
  }
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  const fig = (xs) => ({ p50_ms: +pct(xs, 50).toFixed(2), p95_ms: +pct(xs, 95).toFixed(2) });
  out.rounds = rounds;
  out.add_infer_false = fig(add);
  out.add_queued = fig(extract);
  out.search = fig(find);
}

try {
  await (mode === "bench" ? bench() : story());
} catch (e) {
  failures.push(`stopped: ${e?.name} ${e?.message}\n${e?.stack}`);
}
console.log(JSON.stringify(out));
