// Drives engram's OpenAI Conversations API with the OpenAI Agents SDK's own
// OpenAIConversationsSession, configured with nothing but baseURL and apiKey.
//
//   node session.mjs fill  <baseURL> <apiKey>            adds 25 items, reads them back, pops the last
//   node session.mjs clear <baseURL> <apiKey> <conv id>  clears the session, then reads it
//
// It prints one JSON object on stdout for test/e2e/oaits_test.go to check.
import { OpenAIConversationsSession } from '@openai/agents';

const [mode, baseURL, apiKey, conversationId] = process.argv.slice(2);

// The 25 items: a user message, an assistant answer, a function call and its
// output, then 21 more messages, user and assistant in turn.
function items() {
  const out = [
    { type: 'message', role: 'user', content: 'I am vegetarian. What could I cook tonight in Paris?' },
    {
      type: 'message', role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: 'Let me check the weather in Paris first.' }],
    },
    {
      type: 'function_call', callId: 'call_weather_1', name: 'get_weather', status: 'completed',
      arguments: '{"city":"Paris","units":"metric","note":"<b>&</b> \\u00e9"}',
    },
    {
      type: 'function_call_result', callId: 'call_weather_1', name: 'get_weather', status: 'completed',
      output: { type: 'text', text: 'Sunny, 21°C' },
    },
  ];
  for (let i = 1; i <= 21; i++) {
    if (i % 2 === 1) {
      out.push({ type: 'message', role: 'user', content: `Question ${i}: another idea?` });
    } else {
      out.push({
        type: 'message', role: 'assistant', status: 'completed',
        content: [{ type: 'output_text', text: `Answer ${i}: a ratatouille, variation ${i}.` }],
      });
    }
  }
  return out;
}

// summary is what the test checks of an item the SDK read back.
function summary(item) {
  let text = '';
  if (typeof item.content === 'string') {
    text = item.content;
  } else if (Array.isArray(item.content)) {
    text = item.content.map((c) => c.text ?? '').join('');
  }
  return { id: item.id ?? '', type: item.type ?? '', role: item.role ?? '', text, name: item.name ?? '', callId: item.callId ?? '' };
}

async function fill() {
  const session = new OpenAIConversationsSession({ baseURL, apiKey });
  await session.addItems(items());
  const id = await session.getSessionId();
  const all = await session.getItems();
  const last3 = await session.getItems(3);
  const popped = await session.popItem();
  const afterPop = await session.getItems();
  return {
    conversationId: id,
    all: all.map(summary),
    last3: last3.map(summary),
    popped: popped ? summary(popped) : null,
    afterPop: afterPop.length,
  };
}

async function clear() {
  const session = new OpenAIConversationsSession({ baseURL, apiKey, conversationId });
  const before = (await session.getItems()).length;
  await session.clearSession();
  // The session forgot its id: reading the old conversation is a 404.
  const again = new OpenAIConversationsSession({ baseURL, apiKey, conversationId });
  let status = 0;
  let error = null;
  try {
    await again.getItems();
  } catch (err) {
    status = err.status ?? -1;
    error = err.error ?? String(err);
  }
  return { before, status, error, sessionIdAfterClear: session.sessionId ?? null };
}

const run = { fill, clear }[mode];
if (!run) {
  console.error('usage: node session.mjs fill|clear <baseURL> <apiKey> [conversation id]');
  process.exit(2);
}
run().then(
  (out) => console.log(JSON.stringify(out)),
  (err) => {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  },
);
