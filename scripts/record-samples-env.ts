// Side-effect module: MUST be the first import of scripts/record-samples.ts. Pi resolves some paths
// when its modules load (e.g. the tools bin dir = $PI_CODING_AGENT_DIR/bin, where `find` looks for fd
// first), so the isolation env has to be in place before @mariozechner/pi-coding-agent is imported.
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Parent of every temp dir the recorder uses (one sub-dir per scenario). */
export const SAMPLES_TMP = join(tmpdir(), "pi-advisor-ledger-samples");
/** Process-wide Pi agent dir (tools bin dir); each scenario additionally gets its own agentDir. */
export const AGENT_HOME = join(SAMPLES_TMP, "agent-home");

process.env.PI_CODING_AGENT_DIR = AGENT_HOME; // never ~/.pi
process.env.PI_OFFLINE = "1"; // no tool downloads, no version checks
process.env.PI_SKIP_VERSION_CHECK = "1";
process.env.PI_TELEMETRY = "0";
