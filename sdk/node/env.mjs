// The settings sdk_test.go passes to the Node tests, and a client of the
// rlm serve process under test.
import OpenAI from "openai";

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run these tests with make test-sdk (sdk/sdk_test.go)`);
  return v;
}

export const baseURL = need("RLM_SERVE_URL");
export const token = need("RLM_SERVE_TOKEN");
export const markFail = need("RLM_SDK_MARK_FAIL");
export const markJSON = need("RLM_SDK_MARK_JSON");
const statsURL = need("RLM_SDK_UPSTREAM_STATS");

// client is the SDK as a user sets it up: only baseURL and apiKey change.
// maxRetries: 0 keeps an error test from retrying what it expects to fail.
export function client(opts = {}) {
  return new OpenAI({ baseURL, apiKey: token, maxRetries: 0, ...opts });
}

// upstreamCalls is how many calls the fake upstream received whose
// messages contain marker.
export async function upstreamCalls(marker) {
  const r = await fetch(`${statsURL}?marker=${encodeURIComponent(marker)}`);
  if (!r.ok) throw new Error(`upstream stats: ${r.status} ${await r.text()}`);
  return (await r.json()).calls;
}

// unique is a marker no other test's question contains.
export function unique(prefix) {
  return `${prefix}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
