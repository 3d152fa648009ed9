// A TypeScript-SDK MCP client of `axag serve` for the tests: @modelcontextprotocol/sdk, as pinned in
// package.json, the SDK on which most MCP hosts are built.
//
//   node tests/mcp_ts_client.mjs PLAN.json      (or `-`: the plan on stdin)
//
// PLAN: {"transport": "stdio", "command": ..., "args": [...], "env": {...}, "cwd": ...}
//    or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp", "token": ...}
//   with "calls": [{"name": ..., "arguments": {...}}, ...] and "elicit": "accept" | "decline" | null (the answer
//   to a confirmation the server asks for; null: the client declares no elicitation capability).
//
// It lists the tools and makes the calls, validating every result with the SDK's own schemas
// (ListToolsResultSchema, CallToolResultSchema; callTool also validates structuredContent against the tool's
// outputSchema), and prints one JSON line: {"server": the server's name and version, "tools": [the listed
// tools as parsed], "calls": [{"name", "isError", "structuredContent", "text"}], "asked": [elicitation
// messages]}.
// Any refusal by the SDK is thrown: the exit status is 1 and stderr says why.

import { readFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(readFileSync(process.argv[2] === "-" ? 0 : process.argv[2], "utf8"));

function transportOf(plan) {
  if (plan.transport === "stdio") {
    return new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd,
                                      stderr: "inherit" });
  }
  if (plan.transport === "http") {
    const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
    return new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
  }
  throw new Error(`unknown transport ${JSON.stringify(plan.transport)}`);
}

const asked = [];
const capabilities = plan.elicit ? { elicitation: { form: {} } } : {};
const client = new Client({ name: "axag-tests-ts", version: "1.0.0" }, { capabilities });
if (plan.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return plan.elicit === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" };
  });
}

await client.connect(transportOf(plan));
try {
  // the raw answer through the SDK's schema, then once more as the SDK's own listTools (which caches the tools'
  // outputSchema validators that callTool applies to structuredContent)
  const raw = await client.request({ method: "tools/list" }, ListToolsResultSchema);
  const listed = ListToolsResultSchema.parse(raw);
  await client.listTools();
  const calls = [];
  for (const call of plan.calls ?? []) {
    const result = CallToolResultSchema.parse(await client.callTool({ name: call.name, arguments: call.arguments }));
    const text = result.content.length === 1 && result.content[0].type === "text" ? result.content[0].text : null;
    calls.push({ name: call.name, isError: result.isError ?? false, structuredContent: result.structuredContent ?? null,
                 text });
  }
  process.stdout.write(JSON.stringify({ server: client.getServerVersion() ?? null,
                                        tools: listed.tools, calls, asked }) + "\n");
} finally {
  await client.close();
}
