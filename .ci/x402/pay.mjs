// pay.mjs — the official x402 v2 client pays the four payable operations of
// a running catalogued.
//
//   PAYER_KEY=0x… node pay.mjs http://127.0.0.1:8080/v1 [LEDGER]
//
// @x402/fetch (wrapFetchWithPayment) with @x402/evm's exact scheme and a viem
// local account signs EIP-3009 authorizations offline; nothing touches a
// chain. For each operation it first checks the unpaid 402 (the decoded
// PAYMENT-REQUIRED offers exactly the operation's price in Base USDC), then
// pays: 200, a JSON body with data and meta, and a decoded PAYMENT-RESPONSE
// that says success, eip155:8453, the payer and a transaction. A paid call
// the server cannot serve (404) must not be charged, a replayed payment must
// be refused, and a request carrying an unknown API key must get 401, never
// 402. LEDGER, when given, receives one JSON line per charged call (what was
// signed and the transaction returned) for check.sh to compare with the
// facilitator's receipts. Exit status 1 on any failure.
import { wrapFetchWithPayment, x402Client, x402HTTPClient, decodePaymentResponseHeader } from "@x402/fetch";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { NETWORK, USDC, rows, failures, check, same, short, finish, commandLine, settlement } from "./report.mjs";

const PRICES = { specs: "50000", search: "5000", filter: "5000", compare: "100000" };
const BOGUS_KEY = "vsc_apify_" + "0".repeat(48);

const [base, ledgerPath, payerKey] = commandLine("pay.mjs", "v1");
const account = privateKeyToAccount(payerKey);
const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
let signed = null; // the PaymentPayload the client created for the last request
client.onAfterPaymentCreation(async ({ paymentPayload }) => {
  signed = paymentPayload;
});
const paidFetch = wrapFetchWithPayment(fetch, client);
const http = new x402HTTPClient(client);


// newRow adds the row of a call to the table and returns it.
function newRow(op, path) {
  const row = { op, path, offered: "-", status: "-", charged: "-", transaction: "-" };
  rows.push(row);
  return row;
}

// paying makes call, a request through the paying client, with no payment
// signed yet. It returns the response, or null when the client threw (the
// failure is recorded).
async function paying(what, call) {
  signed = null;
  try {
    return await call();
  } catch (e) {
    check(what, false, `the x402 client threw: ${e.message}`);
    return null;
  }
}

async function jsonBody(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
}

// offer checks the unpaid answer: 402 whose PAYMENT-REQUIRED offers exactly
// the price, in Base USDC, for this URL. It returns the offer.
async function offer(what, url, price) {
  const res = await fetch(url);
  const body = await jsonBody(res);
  if (!check(what, res.status === 402, `unpaid request answered ${res.status}, want 402: ${JSON.stringify(body).slice(0, 300)}`)) return null;
  const raw = res.headers.get("PAYMENT-REQUIRED");
  if (!check(what, raw, "the 402 has no PAYMENT-REQUIRED header")) return null;
  let pr;
  try {
    pr = decodePaymentRequiredHeader(raw);
  } catch (e) {
    check(what, false, `@x402/core cannot decode PAYMENT-REQUIRED (${e.message}): ${raw}`);
    return null;
  }
  const a = pr.accepts?.[0] ?? {};
  check(what, pr.x402Version === 2, `PAYMENT-REQUIRED x402Version ${pr.x402Version}, want 2`);
  check(what, pr.resource?.url === url, `PAYMENT-REQUIRED resource.url ${pr.resource?.url}, want ${url}`);
  check(what, pr.accepts?.length === 1, `PAYMENT-REQUIRED offers ${pr.accepts?.length} ways to pay, want 1`);
  check(what, a.scheme === "exact" && a.network === NETWORK && same(a.asset, USDC),
    `offer is ${a.scheme} ${a.network} ${a.asset}, want exact ${NETWORK} ${USDC}`);
  check(what, a.amount === price, `offered amount ${a.amount}, want the price ${price}`);
  check(what, a.extra?.name === "USD Coin" && a.extra?.version === "2", `offer extra ${JSON.stringify(a.extra)}, want USD Coin version 2`);
  check(what, body?.status === 402, `the 402 body is not a ProblemDetail with status 402: ${JSON.stringify(body).slice(0, 200)}`);
  return a;
}

// pay pays one call that must be served: 200, data and meta, settled for
// the price. It returns the body.
async function pay(op, path) {
  const url = base + path;
  const price = PRICES[op];
  const what = `${op} ${path}`;
  const row = newRow(op, path);
  const a = await offer(what, url, price);
  if (!a) return null;
  row.offered = a.amount;
  const res = await paying(what, () => paidFetch(url));
  if (!res) return null;
  row.status = res.status;
  const body = await jsonBody(res);
  const header = res.headers.get("PAYMENT-RESPONSE");
  if (!check(what, res.status === 200, `paid request answered ${res.status}, want 200; PAYMENT-RESPONSE ${header}; body ${JSON.stringify(body).slice(0, 400)}`)) return null;
  check(what, signed, "the client created no payment");
  check(what, body && "data" in body && "meta" in body, `body lacks data or meta: ${JSON.stringify(body).slice(0, 200)}`);
  if (!check(what, header, "no PAYMENT-RESPONSE header on the paid 200")) return body;
  let s;
  try {
    s = decodePaymentResponseHeader(header);
  } catch (e) {
    check(what, false, `decodePaymentResponseHeader failed (${e.message}): ${header}`);
    return body;
  }
  row.transaction = short(s.transaction);
  row.charged = settlement(what, s, { price, payment: signed, payTo: a.payTo, payer: account.address, op, url });
  return body;
}

// notServed pays for a call the server cannot serve: the answer is the
// handler's (404), with no PAYMENT-RESPONSE: nothing is charged.
async function notServed(op, path, want) {
  const url = base + path;
  const what = `${op} ${path}`;
  const row = newRow(op, path);
  const a = await offer(what, url, PRICES[op]);
  if (!a) return;
  row.offered = a.amount;
  const res = await paying(what, () => paidFetch(url));
  if (!res) return;
  row.status = res.status;
  const body = await jsonBody(res);
  check(what, signed, "the client created no payment (the retry carried none)");
  check(what, res.status === want, `paid request answered ${res.status}, want ${want}: ${JSON.stringify(body).slice(0, 300)}`);
  const header = res.headers.get("PAYMENT-RESPONSE");
  check(what, !header, `a ${res.status} carries PAYMENT-RESPONSE ${header}: it must not be charged`);
  row.charged = header ? "CHARGED" : "0";
}

// replay sends the last payment again: the server must refuse it (402 with
// the reason), and nothing more is charged.
async function replay(op, path, payload) {
  const url = base + path;
  const what = `replay ${path}`;
  const row = newRow("replay", path);
  if (!check(what, payload, "no earlier payment to replay")) return;
  const res = await fetch(url, { headers: http.encodePaymentSignatureHeader(payload) });
  row.status = res.status;
  await res.text();
  check(what, res.status === 402, `a replayed payment answered ${res.status}, want 402`);
  check(what, !res.headers.get("PAYMENT-RESPONSE"), "a replayed payment got a PAYMENT-RESPONSE");
  const raw = res.headers.get("PAYMENT-REQUIRED");
  if (check(what, raw, "the refusal has no PAYMENT-REQUIRED")) {
    const pr = decodePaymentRequiredHeader(raw);
    row.transaction = short(pr.error);
    check(what, /nonce/.test(pr.error ?? ""), `PAYMENT-REQUIRED error ${JSON.stringify(pr.error)}, want a used-nonce reason`);
  }
  row.charged = "0";
}

// keyed sends an unknown API key through the paying client: 401, never a
// 402 and never a payment.
async function badKey(op, path) {
  const url = base + path;
  const what = `bad key ${path}`;
  const row = newRow(`${op}+badkey`, path);
  const res = await paying(what, () => paidFetch(url, { headers: { "X-Api-Key": BOGUS_KEY } }));
  if (!res) return;
  row.status = res.status;
  await res.text();
  check(what, res.status === 401, `a request with an unknown API key answered ${res.status}, want 401`);
  check(what, !res.headers.get("PAYMENT-REQUIRED") && !res.headers.get("PAYMENT-RESPONSE"), "a keyed request got x402 headers");
  check(what, !signed, "the client was asked to pay a keyed request");
  row.charged = signed ? "SIGNED" : "0";
}

try {
  // Ids are found by paying a search (without a key every payable
  // operation answers 402).
  let ids = [];
  for (const q of ["kuga", "polo", "a"]) {
    const body = await pay("search", `/search?q=${q}&limit=4`);
    if (!body) break; // the paid search failed: its failure is reported
    ids = (Array.isArray(body?.data) ? body.data : []).map((d) => d.variant_id).filter(Boolean);
    if (ids.length >= 2) break;
  }
  if (ids.length < 2) {
    if (!failures.length) failures.push(`search: found ${ids.length} variant ids, need 2 (data[].variant_id)`);
  } else {
    const specs = await pay("specs", `/variants/${ids[0]}/specs`);
    if (specs) check("specs", specs.data?.variant_id === ids[0], `specs of ${specs.data?.variant_id}, asked for ${ids[0]}`);
    const filter = await pay("filter", "/variants?fuel=diesel&limit=3");
    if (filter) {
      check("filter", Array.isArray(filter.data) && filter.data.length >= 1 && filter.data.length <= 3, `filter returned ${filter.data?.length} rows, want 1 to 3`);
      check("filter", (filter.data ?? []).every((v) => v.fuel_slug === "diesel"), "filter returned a variant that is not diesel");
    }
    const cmp = await pay("compare", `/compare?ids=${ids[0]},${ids[1]}`);
    if (cmp) check("compare", Array.isArray(cmp.data) && cmp.data.length === 2, `compare returned ${cmp.data?.length} variants, want 2`);
    const last = signed;
    await replay("compare", `/compare?ids=${ids[0]},${ids[1]}`, last);
    await notServed("specs", "/variants/v_00000000/specs", 404); // well-formed id of no variant
    await notServed("specs", "/variants/v_zzzzzzzz/specs", 404); // undecodable id
    await badKey("specs", `/variants/${ids[0]}/specs`);
    await badKey("search", "/search?q=kuga&limit=4");
    await badKey("filter", "/variants?fuel=diesel&limit=3");
    await badKey("compare", `/compare?ids=${ids[0]},${ids[1]}`);
  }
} catch (e) {
  failures.push(`unexpected error: ${e.stack ?? e}`);
}

console.log(`payer ${account.address}, @x402/fetch → ${base}`);
finish(["op", "path", "offered", "status", "charged", "transaction"], "paid calls", ledgerPath,
  "ok: every payable operation was paid by the official x402 client");
