import { readFileSync } from "node:fs";
import { readSession } from "./src/events/index.ts";
import { branchFacts, emptyFacts, foldFacts, ledgerOf } from "./src/reducers/index.ts";
import { auditRequest, createAuditMemo, createRenderMemo, DEFAULT_LEDGER_CONFIG, renderRequest, buildContext } from "./src/render/index.ts";
import { advisorToolDeclarations, calledToolNames, sessionTools } from "./src/adapter/cli/replay/tool-set.ts";
const read = readSession(readFileSync(process.argv[2]!, "utf8"));
const upTo = Number(process.argv[3] ?? read.events.length);
const events = read.events.slice(0, upTo);
const tools = sessionTools("/work/project", calledToolNames(read.entries));
const state = ledgerOf(events);
const config = { ...DEFAULT_LEDGER_CONFIG, tailToolCalls: 1 };
const req = renderRequest(state, { config, catalogue: tools.catalogue, tools: tools.declarations, toolsMode: "repo", mode: "consult" }, createRenderMemo());
const facts = branchFacts(foldFacts(emptyFacts(), events));
const audit = auditRequest(req, facts, createAuditMemo());
for (const f of audit.missing.slice(0, 10)) console.log(f.category, JSON.stringify(f.text).slice(0, 200));
const text = JSON.stringify(buildContext(req));
const m = audit.missing.find((f) => f.category === "command");
if (m) { const i = text.indexOf(JSON.stringify(m.text.slice(0, 20)).slice(1, -1)); console.log("found at", i, text.slice(i - 100, i + 200)); }
