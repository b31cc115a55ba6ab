/**
 * Runs one prompt through a host's SDK (createAgentSession + DefaultResourceLoader with the
 * extension as an additional extension path, the same option `pi -e` sets), under whichever Node
 * runs this file: test/hosts/sdk.test.ts spawns it with each host's node, since Pi 1.x needs
 * Node 22 and the tests run on Node 20. Plain JavaScript, so no loader is needed in the child.
 *
 * argv: <host sdk entry (dist/index.js)> <extension path> <cwd> <agent dir> <session dir> <prompt>
 * Prints one JSON line: { sessionFile, extensionErrors, tools, lastText }.
 */

import { openSession } from "./sdk-session.mjs";

const [sdkEntry, extensionPath, cwd, agentDir, sessionDir, prompt] = process.argv.slice(2);
const { session, extensionsResult, bindErrors } = await openSession(sdkEntry, extensionPath, cwd, agentDir, sessionDir);
await session.prompt(prompt);
const lastAssistant = session.messages.filter((m) => m.role === "assistant").at(-1);
const result = {
	sessionFile: session.sessionFile,
	extensionErrors: [...extensionsResult.errors.map((e) => `${e.path}: ${e.error}`), ...bindErrors],
	tools: extensionsResult.extensions.flatMap((e) => [...e.tools.keys()]),
	lastText: lastAssistant?.content.find((c) => c.type === "text")?.text,
};
session.dispose();
process.stdout.write(`${JSON.stringify(result)}\n`);
// Background timers (cache warming) must not keep the child alive after the run.
process.exit(0);
