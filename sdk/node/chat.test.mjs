// Plain, streamed and structured chat completions through the openai SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, markJSON, upstreamCalls, unique } from "./env.mjs";

test("models.list names rlm", async () => {
  const ids = [];
  for await (const m of client().models.list()) ids.push(m.id);
  assert.ok(ids.includes("rlm"), `models: ${ids}`);
  assert.ok(ids.includes("rlm:fake-model"), `models: ${ids}`);
});

test("chat.completions.create answers with the run summary", async () => {
  const q = unique("plain");
  const r = await client().chat.completions.create({
    model: "rlm",
    messages: [{ role: "user", content: `What is the magic number? ${q}` }],
    rlm: { variables: { notes: "the magic number is 42" }, max_iterations: 5 },
  });
  assert.equal(r.object, "chat.completion");
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, "assistant");
  assert.equal(r.choices[0].message.content, "42");
  assert.equal(r.choices[0].finish_reason, "stop");
  assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0, JSON.stringify(r.usage));
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  assert.equal(typeof r.rlm.run_id, "string");
  assert.ok(r.rlm.run_id.length > 0);
  assert.equal(r.id, `chatcmpl-${r.rlm.run_id}`);
  assert.equal(r.rlm.stop_reason, "submit");
  assert.equal(r.rlm.iterations, 2);
  assert.equal(r.rlm.partial, false);
  // null when the model's price is unknown, as the fake model's is
  assert.ok("cost_usd" in r.rlm && (r.rlm.cost_usd === null || typeof r.rlm.cost_usd === "number"));
  assert.equal(await upstreamCalls(q), 2, "one run: two model calls");
});

test("streamed completion: deltas, finish reason, usage chunk", async () => {
  const stream = await client().chat.completions.create({
    model: "rlm",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: `What is the magic number? ${unique("stream")}` }],
  });
  let text = "";
  let progress = 0;
  const finishes = [];
  let usage = null;
  let chunks = 0;
  let usageAt = -1;
  for await (const chunk of stream) {
    chunks++;
    assert.equal(chunk.object, "chat.completion.chunk");
    if (chunk.rlm && !chunk.choices?.[0]?.delta?.content) progress++;
    for (const c of chunk.choices ?? []) {
      if (c.delta?.content) text += c.delta.content;
      if (c.finish_reason) finishes.push(c.finish_reason);
    }
    if (chunk.usage) {
      assert.equal(usage, null, "one usage chunk");
      usage = chunk.usage;
      usageAt = chunks;
      assert.deepEqual(chunk.choices, [], "the usage chunk has no choices");
    }
  }
  assert.equal(text, "42");
  assert.deepEqual(finishes, ["stop"], "one finish reason, on the last choice chunk");
  assert.ok(progress > 0, "progress chunks carry an rlm field");
  assert.ok(usage, "stream_options.include_usage: a usage chunk");
  assert.equal(usageAt, chunks, "the usage chunk is the last");
  assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0, JSON.stringify(usage));
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
});

test("a stream without include_usage has no usage chunk", async () => {
  const stream = await client().chat.completions.create({
    model: "rlm",
    stream: true,
    messages: [{ role: "user", content: `What is the magic number? ${unique("nousage")}` }],
  });
  let text = "";
  for await (const chunk of stream) {
    assert.ok(!chunk.usage, `unexpected usage: ${JSON.stringify(chunk)}`);
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  assert.equal(text, "42");
});

const schema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};

test("structured output: response_format json_schema", async () => {
  const r = await client().chat.completions.create({
    model: "rlm",
    messages: [{ role: "user", content: `Which city, how many people? ${markJSON} ${unique("json")}` }],
    response_format: { type: "json_schema", json_schema: { name: "city", schema, strict: true } },
  });
  assert.equal(r.rlm.stop_reason, "submit");
  assert.deepEqual(JSON.parse(r.choices[0].message.content), { city: "Lisbon", population: 545000 });
});

test("structured output, streamed", async () => {
  const stream = await client().chat.completions.create({
    model: "rlm",
    stream: true,
    messages: [{ role: "user", content: `Which city, how many people? ${markJSON} ${unique("jsonstream")}` }],
    response_format: { type: "json_schema", json_schema: { name: "city", schema, strict: true } },
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices?.[0]?.delta?.content ?? "";
  assert.deepEqual(JSON.parse(text), { city: "Lisbon", population: 545000 });
});
