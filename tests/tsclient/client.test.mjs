// An independent MCP client: the official TypeScript SDK launches the built
// bridle binary over stdio as Claude Code and as Codex, lists the tools,
// calls get_rules, and checks that each gets its own document.
//
// Run with BRIDLE_BIN=/path/to/bridle node --test (scripts/test.sh does).
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.BRIDLE_BIN;
assert.ok(bin, "set BRIDLE_BIN to the built bridle binary");

// The sidecar serves committed rules only: give it a rules repository
// holding the example, committed on main.
const rules = mkdtempSync(join(tmpdir(), "bridle-rules-"));
copyFileSync(resolve(import.meta.dirname, "../../examples/runic-gateway/bridle.yaml"), join(rules, "bridle.yaml"));
const git = (...args) => execFileSync("git", ["-C", rules, "-c", "user.name=Mira", "-c", "user.email=m@example.com", ...args], { stdio: "ignore" });
git("init", "-q", "-b", "main");
git("add", "bridle.yaml");
git("commit", "-q", "-m", "rules");

async function session(clientName) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--rules", rules],
    env: {
      ...process.env,
      BRIDLE_AGENT: "",
      BRIDLE_STATE_DIR: mkdtempSync(join(tmpdir(), "bridle-state-")),
      BRIDLE_CACHE_DIR: mkdtempSync(join(tmpdir(), "bridle-cache-")),
    },
    stderr: "ignore",
  });
  const client = new Client({ name: clientName, version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const cases = [
  { client: "claude-code", heading: "# Runic Gateway — project rules for Claude", agent: "claude" },
  { client: "codex-mcp-client", heading: "# AGENTS.md — Runic Gateway", agent: "codex" },
];

for (const c of cases) {
  test(`${c.client} gets the ${c.agent} rules`, async () => {
    const client = await session(c.client);
    try {
      assert.match(client.getInstructions() ?? "", /call get_rules/);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const want of ["get_rules", "list_guardrails", "get_guardrail", "request_scope_approval"]) {
        assert.ok(names.includes(want), `tools/list lacks ${want}: ${names}`);
      }
      for (const t of tools) {
        assert.equal(typeof t.annotations?.readOnlyHint, "boolean", `${t.name} is not annotated`);
      }
      assert.equal(tools.find((t) => t.name === "get_rules").outputSchema, undefined);

      const res = await client.callTool({ name: "get_rules", arguments: {} });
      const text = res.content.map((p) => p.text).join("");
      assert.ok(text.includes(c.heading), `wrong document for ${c.client}:\n${text.slice(0, 400)}`);
      assert.ok(text.includes(`agent: ${c.agent}`));
      for (const other of cases.filter((o) => o !== c)) {
        assert.ok(!text.includes(other.heading), `${c.client} got ${other.agent}'s document`);
      }

      const list = await client.callTool({ name: "list_guardrails", arguments: { tier: "enforcement" } });
      assert.equal(list.structuredContent.agent, c.agent);
      assert.equal(list.structuredContent.count, 3);

      const bad = await client.callTool({ name: "get_guardrail", arguments: { id: "no-pii-in-log" } });
      assert.equal(bad.isError, true);
      assert.match(bad.content[0].text, /did you mean "no-pii-in-logs"/);
    } finally {
      await client.close();
    }
  });
}
