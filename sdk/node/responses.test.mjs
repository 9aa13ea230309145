// The Responses API (POST /v1/responses) through the openai SDK: plain,
// streamed (raw events and the responses.stream helper), structured
// output, a failure inside the stream, an idempotent retry.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { client, markFail, markJSON, upstreamCalls, unique } from "./env.mjs";

test("responses.create answers with a response object and the run summary", async () => {
  const q = unique("resp");
  const r = await client().responses.create({
    model: "rlm",
    instructions: "Answer with the number only.",
    input: `What is the magic number? ${q}`,
    metadata: { app: "conformance" },
    rlm: { variables: { notes: "the magic number is 42" }, max_iterations: 5 },
  });
  assert.equal(r.object, "response");
  assert.equal(r.status, "completed");
  assert.equal(r.output_text, "42");
  assert.equal(r.output.length, 1);
  const [msg] = r.output;
  assert.equal(msg.type, "message");
  assert.equal(msg.role, "assistant");
  assert.equal(msg.status, "completed");
  assert.deepEqual(msg.content, [{ type: "output_text", text: "42", annotations: [], logprobs: [] }]);
  assert.equal(r.instructions, "Answer with the number only.");
  assert.deepEqual(r.metadata, { app: "conformance" });
  assert.equal(r.error, null);
  assert.ok(r.usage.input_tokens > 0 && r.usage.output_tokens > 0, JSON.stringify(r.usage));
  assert.equal(r.usage.total_tokens, r.usage.input_tokens + r.usage.output_tokens);
  assert.equal(typeof r.rlm.run_id, "string");
  assert.equal(r.id, `resp_${r.rlm.run_id}`);
  assert.equal(r.rlm.stop_reason, "submit");
  assert.equal(r.rlm.iterations, 2);
  assert.equal(await upstreamCalls(q), 2, "one run: two model calls");
});

test("input as messages with input_text parts", async () => {
  const r = await client().responses.create({
    model: "rlm",
    input: [
      { role: "developer", content: "Be brief." },
      { role: "user", content: [{ type: "input_text", text: `What is the magic number? ${unique("parts")}` }] },
    ],
  });
  assert.equal(r.output_text, "42");
});

test("streamed response: the Responses events, numbered, then response.completed", async () => {
  const stream = await client().responses.create({
    model: "rlm",
    stream: true,
    input: `What is the magic number? ${unique("respstream")}`,
  });
  const types = [];
  let text = "";
  let seq = 0;
  let completed = null;
  for await (const event of stream) {
    assert.equal(event.sequence_number, seq++, JSON.stringify(event));
    if (types.at(-1) !== event.type) types.push(event.type);
    if (event.type === "response.output_text.delta") text += event.delta;
    if (event.type === "response.completed") completed = event.response;
  }
  assert.deepEqual(types, [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  assert.equal(text, "42");
  assert.equal(completed.status, "completed");
  assert.ok(completed.usage.total_tokens > 0);
  assert.equal(completed.rlm.stop_reason, "submit");
});

test("responses.stream helper: text deltas and the final response", async () => {
  const stream = client().responses.stream({ model: "rlm", input: `What is the magic number? ${unique("helper")}` });
  let text = "";
  stream.on("response.output_text.delta", (e) => {
    text += e.delta;
  });
  const final = await stream.finalResponse();
  assert.equal(text, "42");
  assert.equal(final.output_text, "42");
  assert.equal(final.status, "completed");
});

const schema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};

test("structured output: text.format json_schema, parsed by responses.parse", async () => {
  const r = await client().responses.parse({
    model: "rlm",
    input: `Which city, how many people? ${markJSON} ${unique("respjson")}`,
    text: { format: { type: "json_schema", name: "city", schema, strict: true } },
  });
  assert.equal(r.rlm.stop_reason, "submit");
  assert.deepEqual(r.output_parsed, { city: "Lisbon", population: 545000 });
  assert.equal(r.text.format.type, "json_schema");
});

test("structured output, streamed", async () => {
  const stream = client().responses.stream({
    model: "rlm",
    input: `Which city, how many people? ${markJSON} ${unique("respjsonstream")}`,
    text: { format: { type: "json_schema", name: "city", schema, strict: true } },
  });
  const final = await stream.finalResponse();
  // The stream helper parses only zod formats (zodTextFormat): the text is
  // the JSON object.
  assert.deepEqual(JSON.parse(final.output_text), { city: "Lisbon", population: 545000 });
});

test("a run whose upstream fails: the stream throws after response.failed", async () => {
  const stream = await client().responses.create({ model: "rlm", stream: true, input: `${markFail} ${unique("respfail")}` });
  const types = [];
  await assert.rejects(
    async () => {
      for await (const event of stream) types.push(event.type);
    },
    (err) => {
      assert.ok(err instanceof OpenAI.APIError, `${err?.constructor?.name}: ${err}`);
      assert.match(err.message, /run .* failed/);
      return true;
    },
  );
  assert.deepEqual(types, ["response.created", "response.in_progress", "response.failed"]);
});

test("a run whose upstream fails: the stream helper rejects", async () => {
  const stream = client().responses.stream({ model: "rlm", input: `${markFail} ${unique("respfailhelper")}` });
  await assert.rejects(stream.finalResponse(), OpenAI.APIError);
});

test("a run whose upstream fails: not streamed, a 502 APIError", async () => {
  await assert.rejects(client().responses.create({ model: "rlm", input: `${markFail} ${unique("resp502")}` }), (err) => {
    assert.ok(err instanceof OpenAI.InternalServerError, `${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 502);
    assert.equal(err.code, "run_failed");
    return true;
  });
});

test("an unsupported parameter: BadRequestError naming it", async () => {
  const ask = { model: "rlm", input: "What is the magic number?" };
  for (const [extra, param] of [
    [{ tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }] }, "tools"],
    [{ previous_response_id: "resp_123" }, "previous_response_id"],
    [{ background: true }, "background"],
    [{ max_output_tokens: 0 }, "max_output_tokens"],
  ]) {
    await assert.rejects(client().responses.create({ ...ask, ...extra }), (err) => {
      assert.ok(err instanceof OpenAI.BadRequestError, `${err?.constructor?.name}: ${err}`);
      assert.equal(err.param, param);
      return true;
    });
  }
});

test("the same Idempotency-Key twice: one run", async () => {
  const q = unique("respidem");
  const body = { model: "rlm", input: `What is the magic number? ${q}` };
  const opts = { headers: { "Idempotency-Key": unique("key") } };
  const c = client();
  const first = await c.responses.create(body, opts).withResponse();
  const second = await c.responses.create(body, opts).withResponse();
  assert.equal(first.data.output_text, "42");
  assert.equal(second.data.id, first.data.id);
  assert.equal(second.data.output_text, "42");
  assert.equal(second.response.headers.get("idempotent-replayed"), "true");
  assert.equal(await upstreamCalls(q), 2, "the upstream saw one run's two calls");

  // A streamed request retried with its key replays the same run.
  const key2 = { headers: { "Idempotency-Key": unique("key") } };
  const ids = [];
  for (let i = 0; i < 2; i++) {
    const stream = await c.responses.create({ ...body, stream: true }, key2);
    let text = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") ids.push(event.response.id);
    }
    assert.equal(text, "42");
  }
  assert.equal(ids.length, 2);
  assert.equal(ids[1], ids[0], "the retried stream replays the first one's run");
  assert.notEqual(ids[0], first.data.id, "another key (and body) is another run");
  assert.equal(await upstreamCalls(q), 4, "one more run for the streamed request, none for its retry");

  await assert.rejects(c.responses.create({ model: "rlm", input: unique("other") }, opts), (err) => err.status === 409);
});
