// A Node client of rlm serve: the official OpenAI SDK, only baseURL changes.
//
// Start a server (any OpenAI-compatible upstream), then run this script:
//
//   RLM_SERVE_TOKEN=a-long-random-secret-token OPENAI_BASE_URL=http://localhost:11434/v1 RLM_MODEL=llama3.1 rlm serve --addr 127.0.0.1:8088
//   npm install openai
//   RLM_SERVE_URL=http://127.0.0.1:8088/v1 RLM_SERVE_TOKEN=a-long-random-secret-token node client.mjs
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: process.env.RLM_SERVE_URL ?? "http://127.0.0.1:8088/v1",
  apiKey: process.env.RLM_SERVE_TOKEN ?? "unused",
});
const notes = "Meeting notes. ... Ana said the magic number is 42. ...";

// One answer: the extra "rlm" field carries the variables and budgets (the
// Node SDK sends unknown body fields as they are).
const r = await client.chat.completions.create({
  model: "rlm",
  messages: [{ role: "user", content: "What is the magic number?" }],
  rlm: { variables: { notes }, max_iterations: 10 },
});
console.log("answer:", r.choices[0].message.content);
console.log("run:", r.rlm.run_id, "stop:", r.rlm.stop_reason);

// Streaming: progress chunks carry an "rlm" field and no content, then the
// answer arrives as content deltas.
const stream = await client.chat.completions.create({
  model: "rlm",
  stream: true,
  messages: [{ role: "user", content: "What is the magic number?" }],
  rlm: { variables: { notes } },
});
let text = "";
let events = 0;
for await (const chunk of stream) {
  const delta = chunk.choices?.[0]?.delta?.content;
  if (delta) text += delta;
  else events++;
}
console.log("streamed:", text);
console.log("progress chunks:", events > 0);
