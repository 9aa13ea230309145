// An Idempotency-Key makes a retried create the same run. The openai
// client sends no idempotency header of its own (its idempotencyKey
// request option needs one), so the header is given as a request option.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, upstreamCalls, unique } from "./env.mjs";

test("the same Idempotency-Key twice: one run", async () => {
  const q = unique("idem");
  const body = { model: "rlm", messages: [{ role: "user", content: `What is the magic number? ${q}` }] };
  const opts = { headers: { "Idempotency-Key": unique("key") } };
  const c = client();
  const first = await c.chat.completions.create(body, opts).withResponse();
  const second = await c.chat.completions.create(body, opts).withResponse();
  assert.equal(first.data.choices[0].message.content, "42");
  assert.equal(second.data.rlm.run_id, first.data.rlm.run_id);
  assert.equal(second.data.choices[0].message.content, "42");
  assert.equal(second.response.headers.get("idempotent-replayed"), "true");
  assert.equal(await upstreamCalls(q), 2, "the upstream saw one run's two calls");

  // Another key is another run.
  const third = await c.chat.completions.create(body, { headers: { "Idempotency-Key": unique("key") } });
  assert.notEqual(third.rlm.run_id, first.data.rlm.run_id);
  assert.equal(await upstreamCalls(q), 4);
});

test("the same Idempotency-Key with another body: 409", async () => {
  const opts = { headers: { "Idempotency-Key": unique("key") } };
  const c = client();
  await c.chat.completions.create({ model: "rlm", messages: [{ role: "user", content: unique("a") }] }, opts);
  await assert.rejects(
    c.chat.completions.create({ model: "rlm", messages: [{ role: "user", content: unique("b") }] }, opts),
    (err) => err.status === 409,
  );
});
