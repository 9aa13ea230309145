// Errors as the openai SDK raises them.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { client, markFail, unique } from "./env.mjs";

const ask = (q) => ({ model: "rlm", messages: [{ role: "user", content: q }] });

test("a run whose upstream fails: the stream throws", async () => {
  const stream = await client().chat.completions.create({ ...ask(`${markFail} ${unique("fail")}`), stream: true });
  let text = "";
  let finish = null;
  await assert.rejects(
    async () => {
      for await (const chunk of stream) {
        text += chunk.choices?.[0]?.delta?.content ?? "";
        finish ??= chunk.choices?.[0]?.finish_reason ?? null;
      }
    },
    (err) => {
      assert.ok(err instanceof OpenAI.APIError, `${err?.constructor?.name}: ${err}`);
      assert.match(err.message, /run .* failed/);
      return true;
    },
  );
  assert.equal(text, "", "no answer");
  assert.equal(finish, null, "no finish reason dressing the failure up");
});

test("a run whose upstream fails: not streamed, a 502 APIError", async () => {
  await assert.rejects(client().chat.completions.create(ask(`${markFail} ${unique("fail502")}`)), (err) => {
    assert.ok(err instanceof OpenAI.InternalServerError, `${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 502);
    assert.equal(err.code, "run_failed");
    return true;
  });
});

test("a bad token: AuthenticationError", async () => {
  const bad = client({ apiKey: "not-the-token-0123456789" });
  await assert.rejects(bad.chat.completions.create(ask("What is the magic number?")), (err) => {
    assert.ok(err instanceof OpenAI.AuthenticationError, `${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 401);
    return true;
  });
  await assert.rejects(bad.models.list(), OpenAI.AuthenticationError);
});

test("an unsupported parameter: BadRequestError naming it", async () => {
  await assert.rejects(client().chat.completions.create({ ...ask("What is the magic number?"), logprobs: true }), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, `${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 400);
    assert.equal(err.param, "logprobs");
    return true;
  });
  await assert.rejects(client().chat.completions.create({ ...ask("What is the magic number?"), top_p: 2 }), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, `${err?.constructor?.name}: ${err}`);
    assert.equal(err.param, "top_p");
    return true;
  });
  await assert.rejects(
    client().chat.completions.create({ ...ask("What is the magic number?"), n: 2 }),
    OpenAI.BadRequestError,
  );
});
