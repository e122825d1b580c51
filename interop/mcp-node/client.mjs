// Drives a built `agenttools mcp` with the MCP TypeScript SDK's own
// client (@modelcontextprotocol/sdk, pinned in package-lock.json): it
// starts the server over stdio on a scratch host directory, lists the
// tools (with their titles, annotations and output schemas), calls read,
// grep, edit, write and delete, and checks each answer exactly; then
// starts it again with --publish-addr, calls publish and fetches the link
// it returns.
//
// Usage: node client.mjs PATH_TO_AGENTTOOLS
// Prints the exchange; exits 1 when an answer is not the expected one.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node client.mjs PATH_TO_AGENTTOOLS");
  process.exit(2);
}

let failures = 0;
function expect(what, got, want) {
  if (isDeepStrictEqual(got, want)) {
    return;
  }
  failures++;
  console.log(`FAIL ${what}\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(want)}`);
}

const scratch = mkdtempSync(join(tmpdir(), "agenttools-mcp-node-"));
const dir = join(scratch, "project");
mkdirSync(join(dir, "src"), { recursive: true });
writeFileSync(join(dir, "notes.md"), "# Notes\nstatus: draft\nowner: team\n");
writeFileSync(join(dir, "src", "app.go"), "package app\n\n// status: draft\n");

// What the server must list: the definitions `agenttools tools` prints
// for the same (default) flags.
const defined = JSON.parse(execFileSync(bin, ["tools", "--exec", "none"], { encoding: "utf8" }));

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--dir", dir, "--db", join(scratch, "workspace.db")],
  stderr: "inherit",
});
const client = new Client({ name: "agenttools-interop", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
console.log(`connected to ${server.name} ${server.version}`);

const { tools } = await client.listTools();
console.log(`tools/list: ${tools.map((t) => t.name).join(", ")}`);
const listed = Object.fromEntries(tools.map((t) => [t.name, t]));
expect("tool names", tools.map((t) => t.name).sort(), defined.map((t) => t.name).sort());
for (const d of defined) {
  const t = listed[d.name];
  expect(`${d.name} description`, t?.description, d.description);
  expect(`${d.name} inputSchema`, t?.inputSchema, d.inputSchema);
}

// Each tool's title and MCP annotations (spec/tools.cue), as this client
// reads them: the title in both places, every declared hint explicit.
const readOnly = { readOnlyHint: true, idempotentHint: false, openWorldHint: false };
const wantAnnotations = {
  read: ["Read file", readOnly],
  ls: ["List directory", readOnly],
  find: ["Find files", readOnly],
  grep: ["Search file contents", readOnly],
  write: ["Write file", { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  edit: ["Edit file", { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
  delete: ["Delete file or directory", { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
};
for (const t of tools) {
  const [title, hints] = wantAnnotations[t.name] ?? [];
  expect(`${t.name} title and annotations`, [t.title, t.annotations], [title, { ...hints, title }]);
}

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
  console.log(`\n> ${name} ${JSON.stringify(args)}\n${res.isError ? "(isError) " : ""}${text}`);
  return { text, isError: res.isError === true };
}

let r = await call("read", { path: "/workspace/notes.md" });
expect("read", r, { text: "# Notes\nstatus: draft\nowner: team", isError: false });

r = await call("grep", { query: "status: draft" });
expect("grep", JSON.parse(r.text), {
  path: "/workspace",
  query: "status: draft",
  count: 2,
  matches: [
    { path: "/workspace/notes.md", line: 2, text: "status: draft" },
    { path: "/workspace/src/app.go", line: 3, text: "// status: draft" },
  ],
});

r = await call("edit", {
  path: "/workspace/notes.md",
  edits: [{ oldText: "status: draft", newText: "status: final" }],
});
const edited = JSON.parse(r.text);
expect("edit applied", [r.isError, edited.editsApplied], [false, 1]);
expect("edit diff", edited.diff, " 1 # Notes\n-2 status: draft\n+2 status: final\n 3 owner: team");
expect("file on disk", readFileSync(join(dir, "notes.md"), "utf8"), "# Notes\nstatus: final\nowner: team\n");

r = await call("edit", {
  path: "/workspace/notes.md",
  edits: [{ oldText: "status: draft", newText: "status: again" }],
});
expect("edit of text that is gone", r.isError, true);
expect("file after the failed edit", readFileSync(join(dir, "notes.md"), "utf8"), "# Notes\nstatus: final\nowner: team\n");

r = await call("read", { path: "/workspace/missing.md" });
expect("missing file", r, { text: "File not found: /workspace/missing.md", isError: true });

await checkOutputSchemas();

let unknown;
try {
  await client.callTool({ name: "exec", arguments: { command: "true" } });
} catch (err) {
  unknown = err;
}
console.log(`\n> exec (not offered without --exec host)\n${unknown ? `protocol error: ${unknown.message}` : "answered"}`);
expect("exec is not offered by default", unknown !== undefined, true);

// Output schemas (issue 17): write, edit, delete (and publish) are listed with the
// spec's outputSchema plus "type":"object" at its top (listTools above
// already passed the SDK's check of the form, and callTool validates
// structuredContent against it on success); every answer, failures too,
// carries structuredContent equal to the JSON its text holds. The other
// tools list none.
async function checkOutputSchemas() {
  for (const d of defined) {
    const want = d.outputSchema ? { ...d.outputSchema, type: "object" } : undefined;
    expect(`${d.name} outputSchema`, listed[d.name]?.outputSchema, want);
  }
  // publish is listed only when the server has a publisher.
  for (const name of ["write", "edit", "delete", ...(listed.publish ? ["publish"] : [])]) {
    const schema = listed[name]?.outputSchema;
    expect(`${name} outputSchema form`, [schema?.type, schema?.anyOf?.length], ["object", 2]);
  }
  const calls = [
    ["write", { path: "/workspace/out.txt", content: "one\n" }, false],
    ["write", { path: "/workspace", content: "x" }, true],
    ["edit", { path: "/workspace/out.txt", edits: [{ oldText: "one", newText: "two" }] }, false],
    ["edit", { path: "/workspace/out.txt", edits: [{ oldText: "one", newText: "two" }] }, true],
    ["delete", { path: "/workspace/out.txt" }, false],
    ["delete", { path: "/" }, true],
  ];
  for (const [name, args, isError] of calls) {
    const res = await client.callTool({ name, arguments: args });
    const text = res.content[0]?.text;
    console.log(`\n> ${name} ${JSON.stringify(args)}\n${res.isError ? "(isError) " : ""}structuredContent ${JSON.stringify(res.structuredContent)}`);
    expect(`${name} ${JSON.stringify(args)} isError`, res.isError === true, isError);
    expect(`${name} ${JSON.stringify(args)} structuredContent`, res.structuredContent, JSON.parse(text));
  }
  expect("file after the output schema calls", existsSync(join(dir, "out.txt")), false);
}

const pid = transport.pid;
await client.close();
// The server exits once its input is closed.
let alive = true;
for (let i = 0; i < 100 && alive; i++) {
  try {
    process.kill(pid, 0);
    await new Promise((ok) => setTimeout(ok, 50));
  } catch {
    alive = false;
  }
}
expect("server exited after the client closed", alive, false);

await checkPublish();
rmSync(scratch, { recursive: true, force: true });

// Output schemas (issue 17) of publish: listed in the object form, and
// each answer's structuredContent is the object its text holds.
function checkPublishOutputSchema(tools, answers) {
  const schema = tools.find((t) => t.name === "publish")?.outputSchema;
  expect("publish outputSchema form", [schema?.type, schema?.anyOf?.length], ["object", 2]);
  for (const [res, parsed] of answers) {
    expect(`publish structuredContent (ok ${parsed.ok})`, res.structuredContent, parsed);
  }
}

// publish with the local publisher: a server started with
// --publish-addr 127.0.0.1:0 offers publish; the link it returns is
// fetched with fetch(), and must serve the file's bytes as they were
// when published, and refuse a link whose signature was changed.
async function checkPublish() {
  const report = Buffer.from("%PDF-1.4 quarterly report\n\u00e9t\u00e9 2026\n", "utf8");
  writeFileSync(join(dir, "report.pdf"), report);
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--dir", dir, "--db", join(scratch, "publish.db"), "--publish-addr", "127.0.0.1:0"],
    stderr: "inherit",
  });
  const pub = new Client({ name: "agenttools-interop-publish", version: "1.0.0" });
  await pub.connect(transport);
  const { tools } = await pub.listTools();
  expect("publish is offered with --publish-addr", tools.some((t) => t.name === "publish"), true);

  const res = await pub.callTool({ name: "publish", arguments: { path: "/workspace/report.pdf", expiresAfterMs: 60000 } });
  const text = res.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
  console.log(`\n> publish {"path":"/workspace/report.pdf","expiresAfterMs":60000}\n${res.isError ? "(isError) " : ""}${text}`);
  const answer = JSON.parse(text);
  checkPublishOutputSchema(tools, [[res, answer]]);
  expect("publish answer", [res.isError === true, answer.ok, typeof answer.url], [false, true, "string"]);
  // The file changes after publish: the link serves the copy.
  writeFileSync(join(dir, "report.pdf"), "changed");
  if (typeof answer.url === "string") {
    const url = new URL(answer.url);
    expect("link host", url.host.startsWith("127.0.0.1:"), true);
    expect("link path", url.pathname, "/workspace/report.pdf");
    const got = await fetch(answer.url);
    const body = Buffer.from(await got.arrayBuffer());
    console.log(`GET ${url.pathname}: ${got.status} ${got.headers.get("content-type")}, ${body.length} bytes`);
    expect("GET of the link", [got.status, got.headers.get("content-type"), got.headers.get("content-disposition")], [200, "application/pdf", "inline; filename=report.pdf"]);
    expect("bytes served", body.equals(report), true);
    const sig = url.searchParams.get("sig");
    url.searchParams.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    const tampered = await fetch(url);
    await tampered.arrayBuffer();
    expect("GET with a changed signature", tampered.status, 403);
  }

  const missing = await pub.callTool({ name: "publish", arguments: { path: "/workspace/missing.pdf" } });
  const missingText = missing.content[0]?.text;
  console.log(`\n> publish {"path":"/workspace/missing.pdf"}\n${missingText}`);
  expect("publish of a missing file", JSON.parse(missingText).ok, false);
  checkPublishOutputSchema(tools, [[missing, JSON.parse(missingText)]]);
  await pub.close();
}

// Approval (`agenttools mcp --approve mutating`): the server asks this
// client's user (MCP elicitation) before each write; the write accepted
// runs, the one declined answers the refusal and writes nothing.
{
  const approveScratch = mkdtempSync(join(tmpdir(), "agenttools-mcp-node-approve-"));
  const approveDir = join(approveScratch, "project");
  mkdirSync(approveDir);
  const asking = new Client({ name: "agenttools-interop-approve", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const questions = [];
  asking.setRequestHandler(ElicitRequestSchema, async (req) => {
    questions.push(req.params.message);
    return req.params.message.includes("yes.txt") ? { action: "accept", content: { approve: true } } : { action: "decline" };
  });
  await asking.connect(new StdioClientTransport({
    command: bin,
    args: ["mcp", "--dir", approveDir, "--db", join(approveScratch, "workspace.db"), "--approve", "mutating"],
    stderr: "inherit",
  }));
  for (const [file, approved] of [["yes.txt", true], ["no.txt", false]]) {
    const args = { path: `/workspace/${file}`, content: "x" };
    const res = await asking.callTool({ name: "write", arguments: args });
    const text = res.content.map((c) => c.text).join("\n");
    console.log(`\n> write ${JSON.stringify(args)} (${approved ? "approved" : "declined"})\n${res.isError ? "(isError) " : ""}${text}`);
    expect(`write ${file}: isError, file written`, [res.isError === true, existsSync(join(approveDir, file))], [!approved, approved]);
    if (!approved) {
      expect("the refusal", JSON.parse(text), { error: "The user did not approve this write call; nothing was changed." });
    }
  }
  expect("questions asked", questions.length, 2);
  await asking.close();
  rmSync(approveScratch, { recursive: true, force: true });
}

console.log(failures ? `\n${failures} check(s) failed` : "\nall checks passed");
process.exit(failures ? 1 : 0);
