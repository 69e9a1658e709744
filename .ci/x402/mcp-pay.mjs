// mcp-pay.mjs — an independent MCP client pays tool calls of a running
// catalogued with x402 (transport v2 for MCP, coinbase/x402
// specs/transports-v2/mcp.md).
//
//   PAYER_KEY=0x… node mcp-pay.mjs http://127.0.0.1:8090/mcp [LEDGER]
//
// The official MCP TypeScript SDK (@modelcontextprotocol/sdk Client over
// StreamableHTTPClientTransport, no API key) makes the calls; the official
// x402 client (@x402/core's x402Client with @x402/evm's exact scheme and a
// viem local account) turns each offer — the structuredContent of the
// payment-required tool error — into a PaymentPayload, signed offline, which
// goes back in params._meta["x402/payment"]. tools/list is read first, so
// the SDK validates every structuredContent against the tool's output
// schema, the offers included.
//
// It checks: an unpaid search is answered from the free demo set, and so is
// an unpaid spec sheet of a demo car; filter_catalogue, a spec sheet and a
// comparison outside the demo set offer exactly their price and, paid, are
// answered with the settlement in _meta["x402/payment-response"]; a
// replayed payment is refused with the used-nonce reason; a paid call the
// server cannot serve (an unknown id) is not charged. LEDGER, when given,
// receives one JSON line per charged call (what was signed and the
// transaction returned) for receipts.mjs. Exit status 1 on any failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { NETWORK, USDC, rows, failures, check, same, short, finish, commandLine, settlement } from "./report.mjs";

const PRICES = { search_catalogue: "5000", filter_catalogue: "5000", get_specs_full: "50000", compare_full: "100000" };
const PAYMENT = "x402/payment";
const RESPONSE = "x402/payment-response";

const [mcpURL, ledgerPath, payerKey] = commandLine("mcp-pay.mjs", "mcp");
const account = privateKeyToAccount(payerKey);
const payer = new x402Client().register("eip155:*", new ExactEvmScheme(account));

const json = (v, n = 400) => short(JSON.stringify(v), n);
const argText = (args) => Object.entries(args).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : v}`).join(" ");

const mcp = new Client({ name: "catalogue-x402-mcp-check", version: "1.0.0" });

// call makes one tools/call; it returns the result, or null when the SDK
// threw (the failure is recorded with what it threw).
async function call(what, row, name, args, payment) {
  const params = { name, arguments: args };
  if (payment) params._meta = { [PAYMENT]: payment };
  const started = performance.now();
  try {
    const res = await mcp.callTool(params);
    row.ms = Math.round(performance.now() - started);
    row.isError = res.isError ? "yes" : "no";
    return res;
  } catch (e) {
    row.ms = Math.round(performance.now() - started);
    row.isError = "THREW";
    check(what, false, `the MCP client threw ${e?.constructor?.name ?? "an error"} (code ${e?.code}): ${e?.message ?? e}`);
    return null;
  }
}

function newRow(step, name, args) {
  const row = { step, tool: name, args: short(argText(args), 36), offered: "-", isError: "-", charged: "-", ms: "-", note: "-" };
  rows.push(row);
  return row;
}

// offerOf checks a payment-required result for tool name: isError, the
// PaymentRequired as structuredContent for exactly the price in Base USDC,
// and the same object in content[0].text's {"x402/error":{code:402,data}}.
// reason, when given, is the error the offer must carry. It returns the
// PaymentRequired, or null.
function offerOf(what, res, name, reason) {
  if (!res) return null;
  const pr = res.structuredContent;
  if (!check(what, res.isError === true, `want the payment-required tool error, got isError ${res.isError}: ${json(res)}`)) return null;
  if (!check(what, pr && typeof pr === "object", `the payment-required result has no structuredContent: ${json(res)}`)) return null;
  const a = pr.accepts?.[0] ?? {};
  const price = PRICES[name];
  check(what, pr.x402Version === 2, `structuredContent.x402Version ${pr.x402Version}, want 2`);
  check(what, pr.resource?.url === `mcp://tool/${name}`, `resource.url ${pr.resource?.url}, want mcp://tool/${name}`);
  check(what, pr.accepts?.length === 1, `${pr.accepts?.length} ways to pay offered, want 1`);
  check(what, a.scheme === "exact" && a.network === NETWORK && same(a.asset, USDC),
    `offer is ${a.scheme} ${a.network} ${a.asset}, want exact ${NETWORK} ${USDC}`);
  check(what, a.amount === price, `accepts[0].amount ${JSON.stringify(a.amount)}, want the price "${price}"`);
  check(what, a.extra?.name === "USD Coin" && a.extra?.version === "2", `offer extra ${JSON.stringify(a.extra)}, want USD Coin version 2`);
  if (reason === undefined) check(what, !pr.error, `an unpaid offer carries error ${JSON.stringify(pr.error)}`);
  else check(what, pr.error === reason, `structuredContent.error ${JSON.stringify(pr.error)}, want ${JSON.stringify(reason)}`);
  check(what, !res._meta?.[RESPONSE], `a payment-required result carries _meta["${RESPONSE}"] ${json(res._meta?.[RESPONSE])}`);
  const text = res.content?.[0]?.type === "text" ? res.content[0].text : undefined;
  let wrapped;
  try {
    wrapped = JSON.parse(text);
  } catch {
    check(what, false, `content[0].text is not JSON: ${short(text, 200)}`);
    return pr;
  }
  const e = wrapped?.["x402/error"];
  check(what, e && e.code === 402 && typeof e.message === "string" && e.message.length > 0,
    `content[0].text is not {"x402/error":{"code":402,"message":…}}: ${short(text, 300)}`);
  check(what, JSON.stringify(e?.data) === JSON.stringify(pr), `x402/error.data differs from structuredContent: ${json(e?.data, 300)}`);
  return pr;
}

// sign turns an offer into a PaymentPayload with the official x402 client.
async function sign(what, pr) {
  try {
    return await payer.createPaymentPayload(pr);
  } catch (e) {
    check(what, false, `x402Client.createPaymentPayload threw: ${e?.message ?? e}`);
    return null;
  }
}

// settled checks the settlement of a paid result and books the charge.
function settled(what, row, name, res, payment, pr) {
  const s = res._meta?.[RESPONSE];
  if (!check(what, s && typeof s === "object", `no _meta["${RESPONSE}"] on the paid result; _meta ${json(res._meta)}`)) return;
  row.note = short(s.transaction);
  row.charged = settlement(what, s, {
    price: PRICES[name], payment, payTo: pr.accepts?.[0]?.payTo, payer: account.address, op: `mcp ${name}`, url: `mcp://tool/${name}`,
  });
}

// paid calls a tool outside the demo set: unpaid, the offer at the price;
// paid with the signed offer, an answer with the settlement. It returns
// the paid result's structuredContent and the payment, or null.
async function paid(name, args) {
  const what = `${name} ${argText(args)}`;
  const row0 = newRow("unpaid", name, args);
  const pr = offerOf(what + " (unpaid)", await call(what, row0, name, args), name);
  if (!pr) return null;
  row0.offered = pr.accepts?.[0]?.amount;
  row0.charged = "0";
  const payment = await sign(what, pr);
  if (!payment) return null;
  const row = newRow("paid", name, args);
  row.offered = pr.accepts?.[0]?.amount;
  const res = await call(what + " (paid)", row, name, args, payment);
  if (!res) return null;
  if (!check(what + " (paid)", res.isError !== true, `the paid call is a tool error: ${json(res, 600)}`)) {
    row.note = short(res.structuredContent?.error ?? res.content?.[0]?.text);
    return null;
  }
  settled(what + " (paid)", row, name, res, payment, pr);
  const body = res.structuredContent;
  check(what + " (paid)", body && "data" in body && "meta" in body, `structuredContent lacks data or meta: ${json(body, 200)}`);
  return { body, payment, row };
}

try {
  const transport = new StreamableHTTPClientTransport(new URL(mcpURL));
  await mcp.connect(transport);
  const server = mcp.getServerVersion();
  // tools/list caches the output schemas: from here on callTool validates
  // every structuredContent, payment offers included.
  const { tools } = await mcp.listTools();
  const names = tools.map((t) => t.name).sort();
  check("tools/list", Object.keys(PRICES).every((n) => names.includes(n)), `tools ${names.join(",")}, want ${Object.keys(PRICES).join(",")}`);
  for (const t of tools) {
    if (PRICES[t.name]) check("tools/list", t.outputSchema, `${t.name} has no outputSchema`);
  }
  console.log(`payer ${account.address}, @modelcontextprotocol/sdk Client → ${mcpURL} (${server?.name ?? "?"} ${server?.version ?? ""}, protocol ${transport.protocolVersion ?? "?"})`);

  // 1. Free: a search without payment is answered from the demo set.
  const demo = new Set();
  {
    const args = { query: "kuga", limit: 10 }; // a demo model
    const row = newRow("free", "search_catalogue", args);
    const res = await call("search_catalogue (free)", row, "search_catalogue", args);
    if (res && check("search_catalogue (free)", !res.isError, `an unpaid search is a tool error: ${json(res, 600)}`)) {
      check("search_catalogue (free)", !res._meta?.[RESPONSE], "a free search carries a settlement");
      const data = Array.isArray(res.structuredContent?.data) ? res.structuredContent.data : [];
      for (const d of data) if (d.variant_id) demo.add(d.variant_id);
      row.charged = "0";
      row.note = `${data.length} demo cars`;
      check("search_catalogue (free)", demo.size > 0, `found no demo car: ${json(res.structuredContent, 300)}`);
      check("search_catalogue (free)", /demo set/.test(res.content?.map((c) => c.text).join(" ") ?? ""), "the free answer has no note on the demo set");
    }
  }
  const demoID = [...demo][0];
  if (demoID) {
    const args = { id: demoID };
    const row = newRow("free", "get_specs_full", args);
    const res = await call("get_specs_full demo car (free)", row, "get_specs_full", args);
    if (res && check("get_specs_full demo car (free)", !res.isError, `the spec sheet of a demo car is a tool error: ${json(res, 600)}`)) {
      check("get_specs_full demo car (free)", res.structuredContent?.data?.variant_id === demoID, `spec sheet of ${res.structuredContent?.data?.variant_id}, asked for ${demoID}`);
      row.charged = "0";
      row.note = short(res.structuredContent?.data?.display_name, 30);
    }
  }

  // 2. filter_catalogue reaches the full catalogue: paid.
  const fargs = { fuel: "diesel", limit: 10 };
  const filter = await paid("filter_catalogue", fargs);
  let candidates = [];
  if (filter) {
    const data = Array.isArray(filter.body?.data) ? filter.body.data : [];
    check("filter_catalogue (paid)", data.length >= 1 && data.length <= 10, `filter returned ${data.length} rows, want 1 to 10`);
    check("filter_catalogue (paid)", data.every((v) => v.fuel_slug === "diesel"), "filter returned a variant that is not diesel");
    candidates = data.map((v) => v.variant_id).filter((id) => id && !demo.has(id));
  }

  // 3. Two cars outside the demo set: their spec sheets are offered at the
  // price unpaid (the first one is then paid; a candidate answered for free
  // is a demo car the search did not show, and is skipped).
  const outside = [];
  for (const id of candidates) {
    if (outside.length === 2) break;
    const args = { id };
    if (outside.length === 0) {
      const r = await paid("get_specs_full", args);
      if (!r) break;
      check(`get_specs_full ${id} (paid)`, r.body?.data?.variant_id === id, `spec sheet of ${r.body?.data?.variant_id}, asked for ${id}`);
      outside.push(id);
      continue;
    }
    const row = newRow("unpaid", "get_specs_full", args);
    const res = await call(`get_specs_full id=${id} (unpaid)`, row, "get_specs_full", args);
    if (res && !res.isError) {
      demo.add(id);
      row.note = "demo car: skipped";
      continue;
    }
    const pr = offerOf(`get_specs_full id=${id} (unpaid)`, res, "get_specs_full");
    if (!pr) break;
    row.offered = pr.accepts?.[0]?.amount;
    row.charged = "0";
    outside.push(id);
  }
  if (filter && outside.length < 2 && !failures.length) {
    failures.push(`found ${outside.length} cars outside the demo set in the paid filter result (${candidates.join(",")}), need 2`);
  }

  // 4. A comparison of the two: paid.
  let last = null;
  if (outside.length === 2) {
    const cmp = await paid("compare_full", { ids: outside });
    if (cmp) {
      const data = Array.isArray(cmp.body?.data) ? cmp.body.data : [];
      check("compare_full (paid)", data.length === 2 && data[0]?.variant_id === outside[0] && data[1]?.variant_id === outside[1],
        `compare returned ${data.map((d) => d.variant_id).join(",")}, want ${outside.join(",")}`);
      last = cmp.payment;
    }
  }

  // 5. The last payment replayed: refused with the used-nonce reason,
  // nothing charged.
  if (last) {
    const args = { ids: outside };
    const row = newRow("replay", "compare_full", args);
    const res = await call("compare_full (replay)", row, "compare_full", args, last);
    const pr = offerOf("compare_full (replay)", res, "compare_full", "invalid_exact_evm_nonce_already_used");
    if (pr) {
      row.offered = pr.accepts?.[0]?.amount;
      row.charged = "0";
      row.note = short(pr.error);
    }
  } else if (!failures.length) {
    failures.push("replay: no earlier compare_full payment to replay");
  }

  // 6. A paid spec sheet of a well-formed id of no variant: a tool error,
  // not charged.
  {
    const name = "get_specs_full";
    const args = { id: "v_00000000" };
    const what = `${name} ${argText(args)}`;
    const row0 = newRow("unpaid", name, args);
    const pr = offerOf(what + " (unpaid)", await call(what, row0, name, args), name);
    if (pr) {
      row0.offered = pr.accepts?.[0]?.amount;
      row0.charged = "0";
      const payment = await sign(what, pr);
      if (payment) {
        const row = newRow("paid", name, args);
        row.offered = pr.accepts?.[0]?.amount;
        const res = await call(what + " (paid)", row, name, args, payment);
        if (res) {
          const s = res._meta?.[RESPONSE] ?? res.structuredContent?.[RESPONSE];
          check(what + " (paid)", res.isError === true, `a paid call for no variant is not a tool error: ${json(res, 400)}`);
          check(what + " (paid)", !(s && s.success === true), `a paid call for no variant was charged: ${json(s)}`);
          check(what + " (paid)", !res.structuredContent?.x402Version, `a paid call for no variant answered with a payment offer: ${json(res.structuredContent, 300)}`);
          row.charged = s?.success ? "CHARGED" : "0";
          row.note = short(res.content?.[0]?.text, 40);
        }
      }
    }
  }
} catch (e) {
  failures.push(`unexpected error: ${e?.stack ?? e}`);
} finally {
  try {
    await mcp.close();
  } catch {
    // nothing to release
  }
}

finish(["step", "tool", "args", "offered", "isError", "charged", "ms", "note"], "paid tool calls", ledgerPath,
  "ok: the MCP tool calls were paid with x402 by the official MCP and x402 clients");
