/**
 * Runs one prompt through a host's SDK (createAgentSession + DefaultResourceLoader with the
 * extension as an additional extension path, the same option `pi -e` sets), under whichever Node
 * runs this file: test/hosts/sdk.test.ts spawns it with each host's node, since Pi 1.x needs
 * Node 22 and the tests run on Node 20. Plain JavaScript, so no loader is needed in the child.
 *
 * argv: <host sdk entry (dist/index.js)> <extension path> <cwd> <agent dir> <session dir> <prompt>
 * Prints one JSON line: { sessionFile, extensionErrors, tools, lastText }.
 */

import { pathToFileURL } from "node:url";

const [sdkEntry, extensionPath, cwd, agentDir, sessionDir, prompt] = process.argv.slice(2);
const { createAgentSession, DefaultResourceLoader, SessionManager, SettingsManager } = await import(
	pathToFileURL(sdkEntry).href
);

// settings.json in agentDir names the executor model (defaultProvider/defaultModel).
const settingsManager = SettingsManager.create(cwd, agentDir);
const resourceLoader = new DefaultResourceLoader({
	cwd,
	agentDir,
	settingsManager,
	additionalExtensionPaths: [extensionPath],
	noSkills: true,
	noPromptTemplates: true,
	noThemes: true,
	noContextFiles: true,
});
await resourceLoader.reload();
const { session, extensionsResult } = await createAgentSession({
	cwd,
	agentDir,
	settingsManager,
	resourceLoader,
	sessionManager: SessionManager.create(cwd, sessionDir),
});
const bindErrors = [];
// What print mode does before the first prompt: emits session_start to the extensions.
await session.bindExtensions({ onError: (e) => bindErrors.push(String(e.error)) });
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
