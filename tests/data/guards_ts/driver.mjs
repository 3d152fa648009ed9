// Test driver: runs scenarios (JSON file, argv[2]) against the compiled guards in this directory and prints
// one JSON line per scenario: the full envelope (toDict()), or {"raised": message}.
import { readFileSync } from "node:fs";
import { GUARDS, fingerprint, makeGuards, InMemoryStore, ToolGuard } from "./guards.js";

const scenarios = JSON.parse(readFileSync(process.argv[2], "utf8"));

function context(spec, fpOf) {
  if (spec === undefined || spec === null) {
    return undefined;
  }
  if (spec.null_as_absent === "default") {
    spec = { ...spec };
    delete spec.null_as_absent;
  }
  const ctx = {};
  if ("actor" in spec) ctx.actor = spec.actor;
  if ("roles" in spec) ctx.roles = spec.roles;
  if ("now" in spec) ctx.now = spec.now;
  if ("null_as_absent" in spec) ctx.nullAsAbsent = spec.null_as_absent;
  if ("remember_seconds" in spec) ctx.rememberSeconds = spec.remember_seconds;
  const fix = (fp) => (fp === "$fp" ? fpOf() : fp);
  if (spec.confirmation) {
    ctx.confirmation = { ...spec.confirmation, fingerprint: fix(spec.confirmation.fingerprint) };
  }
  if (spec.approvals) {
    ctx.approvals = spec.approvals.map((a) => ({ ...a, fingerprint: fix(a.fingerprint) }));
  }
  if ("request_approval" in spec) {
    ctx.requestApproval = async (ticket) => ({ ...spec.request_approval, ticket_tool: ticket.tool, count: ticket.count });
  }
  return ctx;
}

function dropNulls(value) {
  // only for "$fp" with null_as_absent at the top level (scenarios keep nested nulls out of "$fp" cases)
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

let guards = GUARDS;
for (const sc of scenarios) {
  if (sc.op === "reset") {
    guards = makeGuards(new InMemoryStore());
    console.log(JSON.stringify({ reset: true }));
    continue;
  }
  if (sc.op === "reset-async") {
    // a store whose methods all return promises (as a shared cache would)
    const inner = new InMemoryStore();
    const store = {
      acquire: (...a) => Promise.resolve(inner.acquire(...a)),
      rememberApproval: (...a) => Promise.resolve(inner.rememberApproval(...a)),
      approvedBefore: (...a) => Promise.resolve(inner.approvedBefore(...a)),
      consume: (...a) => Promise.resolve(inner.consume(...a)),
    };
    guards = makeGuards(store);
    console.log(JSON.stringify({ reset: true }));
    continue;
  }
  if (sc.op === "fingerprint") {
    console.log(JSON.stringify({ fingerprint: fingerprint(sc.tool, sc.args) }));
    continue;
  }
  globalThis.__axagPre = sc.pre ?? {};
  const fpOf = () => fingerprint(sc.tool, sc.context && sc.context.null_as_absent ? dropNulls(sc.args) : sc.args);
  const ctx = sc.raw_context !== undefined ? sc.raw_context : context(sc.context, fpOf);
  const guard = guards[sc.tool];
  if (!(guard instanceof ToolGuard)) {
    // a tool name chosen by a caller must resolve to a guard or to nothing (never to Object.prototype members)
    console.log(JSON.stringify(guard === undefined ? { unknown_tool: true } : { not_a_guard: typeof guard }));
    continue;
  }
  try {
    if (sc.op === "mutate") {
      // results are copies: mutating one never changes the guard's constants
      const first = (await guard.check(sc.args, ctx)).toDict();
      first.active_constraints.required.push("zzz");
      first.violations.forEach((v) => (v.expected = "zzz"));
    }
    const result =
      sc.op === "check" || sc.op === "mutate"
        ? await guard.check(sc.args, ctx)
        : sc.op === "wrap"
          ? await guard.wrap((args) => ({ handled: args, value: sc.result ?? null }))(sc.args, ctx)
          : await guard.run(async (args) => ({ handled: args, value: sc.result ?? null }), sc.args, ctx);
    console.log(JSON.stringify(sc.view === "model" ? result.forModel() : result.toDict()));
  } catch (err) {
    console.log(JSON.stringify({ raised: String(err && err.message) }));
  }
}
