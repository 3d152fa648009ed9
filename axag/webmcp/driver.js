// ------------------------------------------------------------------ axag WebMCP driver (issue 29)
// Registers the tools whose element is on this page with document.modelContext, guards every call with the
// runtime above (the generated guards' own code), asks the person in the page to confirm, and runs the call as
// the page's own form submission (what `axag serve` sends) or by activating the element.

const AXAG_STORE = new InMemoryStore();
let axagChecker = null;
let axagRoles = [];
let axagConfirmations = 0;

/**
 * Configure the runtime; every member is optional.
 * - preconditions(text, args, tool): true (or a promise of true) when the state precondition `text` holds for a
 *   call of `tool` with `args`, false when it does not, undefined when the page cannot check it; without a
 *   checker (or with undefined), a tool with state preconditions refuses its calls, saying so.
 * - roles: the roles the signed-in person holds (checked against a tool's required roles).
 */
export function configure(options) {
  const o = options !== null && typeof options === "object" ? options : {};
  if ("preconditions" in o) {
    axagChecker = typeof o.preconditions === "function" ? o.preconditions : null;
  }
  if ("roles" in o) {
    axagRoles = Array.isArray(o.roles) ? o.roles.filter((r) => typeof r === "string") : [];
  }
}

const AXAG_RELATIONS = {
  compareParams, compareValue, requires, requiredWhenPresent, requiredWhenEqual, mutuallyExclusive, exactlyOneOf,
  atLeastOneOf,
};

class AxagUncheckable extends Error {}

// the guard members the module leaves out when they have these values (axag/webmcp/module.py _GUARD_DEFAULTS)
const AXAG_GUARD_DEFAULTS = {
  relations: [], bounds: [], preconditions: [], requiredRoles: [], confirmationRequired: false,
  confirmationMessage: null, approvalRequired: false, approvalRoles: [], approvalCount: 1, rateLimit: null,
  rateCount: null, rateWindowSeconds: null, cooldown: null, cooldownSeconds: null,
};

function axagGuardData(t) {
  const schema = {};
  for (const key of Object.keys(t.inputSchema)) {
    if (key !== "$schema") {
      schema[key] = t.inputSchema[key];
    }
  }
  return { tool: t.name, intent: t.element.intent, inputSchema: schema, ...AXAG_GUARD_DEFAULTS, ...t.guard };
}

function axagGuard(t) {
  const g = axagGuardData(t);
  const spec = {
    tool: g.tool, intent: g.intent, inputSchema: g.inputSchema,
    relations: (scope) => {
      for (const [fn, ...args] of g.relations) {
        AXAG_RELATIONS[fn](scope, ...args);
      }
      for (const [param, kind, minimum, maximum] of g.bounds) {
        checkBound(scope, param, kind, minimum, maximum);
      }
    },
    preconditions: g.preconditions.map((text) => ({
      text,
      call: async (args, _context, tool) => {
        if (axagChecker === null) {
          throw new AxagUncheckable(text);
        }
        const holds = await axagChecker(text, copyJson(args), tool);
        if (holds === undefined) {
          throw new AxagUncheckable(text);
        }
        return holds === true;
      },
    })),
    requiredRoles: g.requiredRoles, confirmationRequired: g.confirmationRequired,
    confirmationMessage: g.confirmationMessage, approvalRequired: g.approvalRequired, approvalRoles: g.approvalRoles,
    approvalCount: g.approvalCount, rateLimit: g.rateLimit, rateCount: g.rateCount,
    rateWindowSeconds: g.rateWindowSeconds, cooldown: g.cooldown, cooldownSeconds: g.cooldownSeconds,
    activeConstraints: g.activeConstraints,
  };
  return new ToolGuard(spec, AXAG_STORE, false);
}

function axagRefusal(guard, permission, guidance) {
  return {
    success: false, permission, violations: [], guidance, tool: guard.tool,
    active_constraints: copyJson(guard.spec.activeConstraints),
  };
}

function axagNoApprover(guard) {
  const n = guard.spec.approvalCount;
  const roles = guard.spec.approvalRoles;
  const holding = roles.length === 0 ? "" : ` holding one of the roles ${roles.join(", ")}`;
  return `${guard.tool} needs approval by ${n} ${n === 1 ? "approver" : "approvers"}${holding}, and this page ` +
    "cannot reach an approver: nobody has been asked, so the call cannot proceed from here. Do not repeat the " +
    "call or try to approve it yourself; tell the user.";
}

function axagContext(extra) {
  return { actor: null, roles: axagRoles, ...extra };
}

// ------------------------------------------------------------------ elements and operability

function axagPageMatches(page) {
  const here = location.pathname;
  if (page === here) {
    return true;
  }
  const bare = page.replace(/(?:index)?\.html?$/u, "");
  return bare !== page && (here === bare || here === bare + "/" || here + "/" === bare);
}

/** The page's annotated elements by intent, in document order (one query for every tool). A form with toolname
 * is the browser's own declarative tool (the person submits it): its elements are left to the browser. */
function axagByIntent() {
  const found = new Map();
  const declarative = document.querySelector("form[toolname]") !== null;
  for (const el of document.querySelectorAll("[axag-intent]")) {
    if (declarative && el.closest("form[toolname]") !== null) {
      continue;
    }
    const intent = el.getAttribute("axag-intent");
    const list = found.get(intent);
    if (list === undefined) {
      found.set(intent, [el]);
    } else {
      list.push(el);
    }
  }
  return found;
}

function axagCandidates(t, byIntent, pages) {
  const all = byIntent.get(t.element.intent) ?? [];
  const out = [];
  for (const where of t.element.locations) {
    if (where.source !== undefined) {
      out.push(...all);
      continue;
    }
    let here = pages.get(where.page);
    if (here === undefined) {
      here = axagPageMatches(where.page);
      pages.set(where.page, here);
    }
    if (here && all[where.index] !== undefined) {
      out.push(all[where.index]);
    }
  }
  return out;
}

// what withdraws an element with everything inside it
const AXAG_GATES = "[inert], [hidden], [aria-disabled='true']";

/** Whether a person could operate `el` now. `gated` false says that no element of the page matches AXAG_GATES
 * (one query for all tools), so no ancestor needs to be looked at. */
function axagOperable(el, gated = true) {
  if (!el.isConnected || (gated && el.closest(AXAG_GATES) !== null)) {
    return false;
  }
  if (el.hasAttribute("disabled")) {
    return false;
  }
  if (typeof el.matches === "function" && el.matches(":disabled")) {
    return false;
  }
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true })) {
    return false;
  }
  return true;
}

// ------------------------------------------------------------------ confirmation in the page

let axagSheet = null;
const AXAG_CSS = `
dialog { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1b; background: #fff; border: 1px solid #888;
  border-radius: 8px; padding: 18px 20px; max-width: min(34em, 90vw); box-shadow: 0 8px 28px rgba(0,0,0,.25); }
dialog::backdrop { background: rgba(0,0,0,.35); }
p { margin: 0 0 10px; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 14px; }
dt { font-weight: 600; } dd { margin: 0; font-family: ui-monospace, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
menu { display: flex; gap: 8px; justify-content: flex-end; margin: 0; padding: 0; }
button { font: inherit; padding: 5px 14px; border-radius: 5px; border: 1px solid #666; background: #f4f4f4; }
button[value=yes] { background: #0b57d0; color: #fff; border-color: #0b57d0; }
`;

function axagElement(tag, text) {
  const el = document.createElement(tag);
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

/** Ask the person: resolves true for Yes, false for No or a dismissed dialog. No inline style anywhere: the
 * sheet is a constructed stylesheet adopted by a shadow root, which a CSP without 'unsafe-inline' allows. */
function axagAsk(tool, message, args) {
  return new Promise((resolve) => {
    const host = document.createElement("axag-confirmation");
    const root = host.attachShadow({ mode: "open" });
    if (axagSheet === null && typeof CSSStyleSheet === "function") {
      axagSheet = new CSSStyleSheet();
      axagSheet.replaceSync(AXAG_CSS);
    }
    if (axagSheet !== null) {
      root.adoptedStyleSheets = [axagSheet];
    }
    const dialog = axagElement("dialog");
    dialog.setAttribute("aria-labelledby", "axag-message");
    const p = axagElement("p", message);
    p.id = "axag-message";
    const list = axagElement("dl");
    for (const key of Object.keys(args)) {
      const value = args[key];
      list.append(axagElement("dt", key), axagElement("dd", typeof value === "string" ? value : compactJson(value)));
    }
    const form = axagElement("form");
    form.method = "dialog";
    const menu = axagElement("menu");
    const no = axagElement("button", "No");
    no.value = "no";
    const yes = axagElement("button", "Yes");
    yes.value = "yes";
    menu.append(no, yes);
    form.append(menu);
    dialog.append(p, list, form);
    dialog.dataset.tool = tool;
    root.append(dialog);
    dialog.addEventListener("close", () => {
      host.remove();
      resolve(dialog.returnValue === "yes");
    }, { once: true });
    document.body.append(host);
    dialog.showModal();
    no.focus();
  });
}

// ------------------------------------------------------------------ running a call

function axagText(value) {
  if (typeof value === "boolean") {
    return value ? "true" : "false";
  }
  if (typeof value === "string") {
    return value;
  }
  if (typeof value === "number") {
    return numberText(value);
  }
  return compactJson(value);
}

function axagForm(el) {
  if (el instanceof HTMLFormElement) {
    return el;
  }
  return el.form ?? el.closest("form");
}

function axagControls(form, name) {
  return Array.from(form.elements).filter((c) => c.name === name);
}

const AXAG_SETTERS = new Map();

function axagSetValue(control, text) {
  const proto = Object.getPrototypeOf(control);
  let setter = AXAG_SETTERS.get(proto);
  if (setter === undefined) {
    setter = Object.getOwnPropertyDescriptor(proto, "value")?.set ?? null;
    AXAG_SETTERS.set(proto, setter);
  }
  if (setter !== null) {
    setter.call(control, text);
  } else {
    control.value = text;
  }
}

function axagSetChecked(control, on) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "checked").set;
  setter.call(control, on);
}

function axagFire(control) {
  control.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  control.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Fill the controls the way a person would (native setters, input and change events). */
function axagFill(form, binding, args) {
  for (const param of Object.keys(args)) {
    const value = args[param];
    if (value === null || value === undefined) {
      continue;
    }
    const name = binding.fields[param] ?? param;
    const values = (Array.isArray(value) ? value : [value]).map(axagText);
    for (const control of axagControls(form, name)) {
      if (control instanceof HTMLInputElement && (control.type === "checkbox" || control.type === "radio")) {
        const on = param in binding.checkbox ? value === true : values.includes(control.value);
        if (control.checked !== on) {
          axagSetChecked(control, on);
          axagFire(control);
        }
      } else if (control instanceof HTMLSelectElement) {
        for (const option of control.options) {
          option.selected = values.includes(option.value);
        }
        axagFire(control);
      } else if ((control instanceof HTMLInputElement && control.type !== "hidden" && control.type !== "file") ||
                 control instanceof HTMLTextAreaElement) {
        axagSetValue(control, values[0]);
        axagFire(control);
      }
    }
  }
}

/** The named elements that belong to `form` in document order, read the way `axag serve` reads the live page
 * (axag/compile/http.py form_members): its descendants without a `form=` attribute, and the elements anywhere
 * whose `form=` is its id. */
function axagMembers(form) {
  const id = form.getAttribute("id");
  return Array.from(form.ownerDocument.querySelectorAll("[name]")).filter((el) => {
    const owner = el.getAttribute("form");
    if (owner !== null) {
      return id !== null && owner === id;
    }
    return (el.parentElement?.closest("form") ?? null) === form;
  });
}

/** What a control is (axag/compile/http.py control_kind): `input:TYPE` or the tag name. */
function axagKind(el) {
  const tag = el.localName;
  return tag === "input" ? "input:" + (el.getAttribute("type") || "text").trim().toLowerCase() : tag;
}

/** The live values of the binding's `live` constants (hidden inputs, template values), by index into its
 * constants: the occurrence-th control of the constant's name and kind in the annotated form. Throws
 * AxagPageChanged when one of them is not in the live form. */
function axagLiveValues(form, binding) {
  const out = new Map();
  const live = binding.live ?? [];
  if (live.length === 0) {
    return out;
  }
  const members = axagMembers(form);
  for (const [index, kind, occurrence] of live) {
    const name = binding.constants[index][0];
    const found = members.filter((m) => m.getAttribute("name") === name && axagKind(m) === kind);
    if (occurrence >= found.length) {
      throw new AxagPageChanged(`its form no longer has the ${kind.replace("input:", "")} control '${name}'`);
    }
    const el = found[occurrence];
    out.set(index, "value" in el && typeof el.value === "string" ? el.value : (el.getAttribute("value") ?? ""));
  }
  return out;
}

class AxagPageChanged extends Error {}

/** The pairs `axag serve` sends (axag/serve/binding.py form_pairs): the arguments under their control names in
 * parameter order, then the constants in document order; the constants the binding lists as `live` take the
 * live form's values, every other constant (the submitter, read-only controls) keeps its compiled value. */
function axagPairs(form, binding, args) {
  const pairs = [];
  for (const param of Object.keys(args)) {
    const value = args[param];
    const name = binding.fields[param] ?? param;
    if (value === null || value === undefined) {
      continue;
    }
    if (param in binding.checkbox) {
      if (value === true) {
        pairs.push([name, binding.checkbox[param]]);
      }
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      pairs.push([name, axagText(v)]);
    }
  }
  const live = axagLiveValues(form, binding);
  binding.constants.forEach(([name, compiled], index) => {
    if (live.has(index)) {
      pairs.push([name, live.get(index)]);
    } else if (compiled !== null) {
      pairs.push([name, compiled]);
    }
  });
  return pairs;
}

function axagSingleLine(form, binding, args) {
  const out = [];
  for (const param of Object.keys(args)) {
    const value = args[param];
    if (typeof value !== "string" || !/[\r\n]/u.test(value)) {
      continue;
    }
    const name = binding.fields[param] ?? param;
    if (axagControls(form, name).some((c) => c instanceof HTMLInputElement)) {
      out.push({
        field: param, constraint: "pattern", expected: "a single line", actual: value,
        message: `${param} must be a single line: it cannot contain a carriage return or a line feed.`,
      });
    }
  }
  return out;
}

function axagRequest(binding, pairs) {
  const action = new URL(binding.action, location.href);
  if (binding.method === "GET") {
    action.hash = "";
    action.search = new URLSearchParams(pairs).toString();
    return [action, { method: "GET" }];
  }
  if (binding.enctype === "multipart/form-data") {
    const body = new FormData();
    for (const [n, v] of pairs) {
      body.append(n, v);
    }
    return [action, { method: "POST", body }];
  }
  if (binding.enctype === "text/plain") {
    const body = pairs.map(([n, v]) => `${n}=${v}\r\n`).join("");
    return [action, { method: "POST", body, headers: { "content-type": "text/plain;charset=UTF-8" } }];
  }
  return [action, {
    method: "POST", body: new URLSearchParams(pairs).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  }];
}

async function axagReadCut(response, limit) {
  const reader = response.body === null ? null : response.body.getReader();
  const chunks = [];
  let size = 0;
  while (reader !== null && size <= limit) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  if (reader !== null && size > limit) {
    reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return [all.subarray(0, Math.min(size, limit)), size > limit];
}

/** The backend's answer as serve reports it: status, content type, body (JSON when it is JSON and fits). */
async function axagAnswer(response) {
  const ctype = response.headers.get("content-type") ?? "";
  const [bytes, truncated] = await axagReadCut(response, AXAG_MAX_RESULT_BYTES);
  const text = new TextDecoder("utf-8").decode(bytes);
  let body = text;
  if (!truncated && ctype.split(";")[0].includes("json")) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const out = { status: response.status, content_type: ctype, body };
  if (truncated) {
    out.truncated = true;
  }
  if (response.redirected) {
    out.url = response.url;
  }
  return out;
}

function axagStartOf(body) {
  const text = (typeof body === "string" ? body : JSON.stringify(body)).split(/\s+/u).filter((w) => w).join(" ");
  return Array.from(text).length > 200 ? Array.from(text).slice(0, 200).join("") + "\u2026" : text;
}

class AxagFailure extends Error {
  constructor(envelopeGuidance, result) {
    super(envelopeGuidance);
    this.result = result;
  }
}

/** The form a binding submits: none for a navigate link's GET of its href (a binding without `form` and
 * without live values), which sends the compiled constants and the arguments as serve does. */
function axagBindingForm(el, binding) {
  return binding.form === undefined && (binding.live ?? []).length === 0 ? null : axagForm(el);
}

/** An answer the page cannot read (from another origin: the action's, or a redirect's): the call has run. */
function axagOpaque(tool, sameOrigin, origin) {
  const tail = "so whether it succeeded is unknown. It was not retried. Tell the user; do not repeat the call " +
    "unless the user asks.";
  if (sameOrigin) {
    return new AxagFailure(`${tool} has run: it reached the site, which redirected it to another origin; the ` +
      `browser followed the redirect, and this page cannot read the answer from there, ${tail}`,
    { status: null, opaque: true, error: "redirected_elsewhere", detail: "the site answered with a redirect to " +
      "another origin, which the browser followed; this page cannot read the answer from there" });
  }
  return new AxagFailure(`${tool} has run: it was sent to ${origin}, another origin, which answered, but this ` +
    `page cannot read an answer from another origin, ${tail}`,
  { status: null, opaque: true, error: "answer_unreadable", origin,
    detail: `the request was sent to ${origin}, another origin, whose answer this page cannot read` });
}

async function axagSubmit(tool, el, binding, args) {
  const form = axagBindingForm(el, binding);
  if (form === null && binding.form !== undefined) {
    throw new AxagFailure(`${tool} cannot run: its form is no longer on this page. Do not retry; tell the user.`,
      { status: null, error: "page_changed" });
  }
  let pairs;
  try {
    pairs = axagPairs(form, binding, args);
  } catch (exc) {
    if (!(exc instanceof AxagPageChanged)) {
      throw exc;
    }
    throw new AxagFailure(`${tool} was not run: the page changed (a value its form needs is gone). Reload the ` +
      "page and try again; tell the user if it persists.",
    { status: null, error: "page_changed", detail: `the page changed: ${exc.message}; nothing was sent` });
  }
  if (form !== null) {
    axagFill(form, binding, args);
  }
  const [url, init] = axagRequest(binding, pairs);
  const sameOrigin = url.origin === location.origin;
  // the browser's rules for a form submission: every redirect is followed (a same-origin answer stays readable,
  // one from another origin is opaque to the page); cookies go to the page's own origin only
  init.mode = "no-cors";
  init.credentials = "same-origin";
  init.redirect = "follow";
  let response;
  try {
    response = await fetch(url.href, init);
  } catch (exc) {
    throw new AxagFailure(`${tool} passed its checks but the browser could not complete the request ` +
      `(${exc instanceof Error ? exc.name : "error"}): it may have reached the site (the network failed, or the ` +
      "page's content security policy refused the request) or not. It was not retried. Tell the user; do not repeat the call unless the user asks.",
      { status: null, error: "request_failed" });
  }
  if (response.type === "opaque" || response.type === "opaqueredirect") {
    throw axagOpaque(tool, sameOrigin, url.origin);
  }
  const answer = await axagAnswer(response);
  if (response.status >= 400) {
    throw new AxagFailure(`${tool} passed its checks but the backend answered HTTP ${response.status}: ` +
      `"${axagStartOf(answer.body)}". It was not retried. Tell the user; do not repeat the call unless the user ` +
      "asks.", answer);
  }
  return answer;
}

async function axagActivate(el) {
  let prevented = null;
  const watch = (event) => {
    prevented = event.defaultPrevented;
  };
  window.addEventListener("click", watch, { once: true });
  el.click();
  window.removeEventListener("click", watch);
  await new Promise((r) => setTimeout(r, 0));
  const out = { activated: true, element: el.tagName.toLowerCase(), handled: prevented === true };
  if (el instanceof HTMLAnchorElement && el.href && prevented !== true) {
    out.navigates_to = el.href;
  }
  out.still_on_page = el.isConnected;
  return out;
}

/** A tool's guard, built on its first call (not for every tool at start-up). */
function axagEntryGuard(entry) {
  if (entry.guard === null) {
    entry.guard = axagGuard(entry.tool);
  }
  return entry.guard;
}

async function axagExecute(entry, input) {
  const guard = axagEntryGuard(entry);
  try {
    return await axagGuarded(entry, guard, input);
  } catch (exc) {
    if (exc instanceof AxagUncheckable) {
      return axagRefusal(guard, "precondition_failed", `${guard.tool} cannot run from this page: the precondition ` +
        `"${exc.message}" cannot be checked here (the page has no checker for it). Do not retry; tell ` +
        "the user.");
    }
    return axagRefusal(guard, "precondition_failed", `${guard.tool} failed in the page ` +
      `(${exc instanceof Error ? exc.name : "error"}); it may not have run. Do not retry; tell the user.`);
  }
}

function axagModelView(guard, result) {
  const out = result.forModel();
  if (out.permission === "approval_required") {
    out.guidance = axagNoApprover(guard);
  }
  return out;
}

async function axagGuarded(entry, guard, args) {
  const checked = await guard.check(args, axagContext({}));
  if (!checked.success && checked.permission !== "confirmation_required") {
    return axagModelView(guard, checked);
  }
  const el = entry.current;
  if (el === null || !axagOperable(el)) {
    return axagRefusal(guard, "precondition_failed",
      `${guard.tool} cannot run now: its element is not operable on this page. Do not retry; tell the user.`);
  }
  const binding = entry.tool.http;
  const form = binding === null ? null : axagBindingForm(el, binding);
  const bad = form === null ? [] : axagSingleLine(form, binding, args);
  if (bad.length > 0) {
    const out = axagRefusal(guard, "constraint_violated", `The arguments break ${bad.length} ` +
      `${bad.length === 1 ? "constraint" : "constraints"} of ${guard.tool}: ${bad.map((v) => v.message).join(" ")} ` +
      `Correct the arguments and call ${guard.tool} again; do not repeat the same values.`);
    out.violations = bad;
    return out;
  }
  let confirmation = null;
  if (checked.permission === "confirmation_required") {
    const fp = checked.callerOnly.fingerprint;
    if (guard.spec.approvalRequired) {  // nobody could approve it: the person is not asked for nothing
      return axagModelView(guard, await guard.check(args, axagContext({ confirmation: { fingerprint: fp, id: "" } })));
    }
    const message = checked.callerOnly.confirmation_message ?? `Run ${guard.tool} with these arguments?`;
    if (!(await axagAsk(guard.tool, message, args))) {
      const out = checked.forModel();
      out.guidance = `${guard.tool} was not run: the user declined to confirm it. Do not repeat the call; ask the ` +
        "user what they want instead.";
      return out;
    }
    axagConfirmations += 1;
    confirmation = { fingerprint: fp, by: null, id: `page-${axagConfirmations}` };
  }
  let failure = null;
  const result = await guard.run(async (callArgs) => {
    if (binding === null) {
      return axagActivate(el);
    }
    try {
      return await axagSubmit(guard.tool, el, binding, callArgs);
    } catch (exc) {
      if (exc instanceof AxagFailure) {
        failure = exc;
        return exc.result;
      }
      throw exc;
    }
  }, args, axagContext({ confirmation }));
  const out = axagModelView(guard, result);
  if (failure !== null) {
    out.success = false;
    out.guidance = failure.message;
    out.active_constraints = copyJson(guard.spec.activeConstraints);
  }
  return out;
}

// ------------------------------------------------------------------ registration and the one observer

const AXAG_ENTRIES = [];

/** Register the tools whose element is operable now, withdraw those whose element is not. Called in a
 * microtask (axagStart's or the observer's), never from the module's top level: Chromium records the calling
 * stack at each registerTool, and with DevTools attached (as Playwright attaches it) it collects the source
 * positions of every frame on it, which for the module's top level means parsing the whole module (its tools'
 * JSON text included) again. So registerTool is called here, not from a helper: two short frames deep. */
function axagUpdate() {
  const byIntent = axagByIntent();
  const pages = new Map();
  const gated = document.querySelector(AXAG_GATES) !== null;
  for (const entry of AXAG_ENTRIES) {
    let el = null;
    for (const candidate of axagCandidates(entry.tool, byIntent, pages)) {
      if (axagOperable(candidate, gated)) {
        el = candidate;
        break;
      }
    }
    if (el === null) {
      if (entry.controller !== null) {
        entry.controller.abort();
        entry.controller = null;
        entry.current = null;
      }
      continue;
    }
    entry.current = el;
    if (entry.controller !== null) {
      continue;
    }
    const controller = new AbortController();
    entry.controller = controller;
    const t = entry.tool;
    const registered = document.modelContext.registerTool({
      name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema,
      annotations: t.annotations, execute: (input) => axagExecute(entry, input),
    }, { signal: controller.signal });
    Promise.resolve(registered).catch(() => {
      if (entry.controller === controller) {
        entry.controller = null;
        entry.current = null;
      }
    });
  }
}

function axagStart() {
  try {
    const mc = document.modelContext;
    if (mc === undefined || mc === null || typeof mc.registerTool !== "function") {
      return;
    }
    for (const tool of AXAG_TOOLS) {
      AXAG_ENTRIES.push({ tool, guard: null, controller: null, current: null });
    }
    let queued = false;
    const observer = new MutationObserver(() => {
      if (!queued) {
        queued = true;
        queueMicrotask(() => {
          queued = false;
          axagUpdate();
        });
      }
    });
    observer.observe(document.documentElement, {
      subtree: true, childList: true, attributes: true,
      attributeFilter: ["axag-intent", "disabled", "hidden", "inert", "aria-disabled", "style", "class", "open"],
    });
    axagUpdate();
  } catch {
    // a page that broke WebMCP: the module does nothing
  }
}

try {
  if (typeof document !== "undefined") {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", axagStart, { once: true });
    } else {
      // in the microtask checkpoint right after this module has run, before any other script: every tool is
      // registered by then, and the module's top level is not on the stack of a registerTool call
      queueMicrotask(axagStart);
    }
  }
} catch {
  // a page without WebMCP, or one that broke it: the module does nothing
}
