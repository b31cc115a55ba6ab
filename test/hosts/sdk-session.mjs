/**
 * Opens an agent session through a host's SDK as `pi -e` does: createAgentSession with a
 * DefaultResourceLoader that loads the extension from its path (no skills, prompt templates, themes
 * or context files), then binds the extensions as print mode does before the first prompt. Shared
 * by the SDK drivers (test/hosts/sdk-driver.mjs, test/support/compaction-driver.mjs); plain
 * JavaScript, so the child needs no loader.
 */

import { pathToFileURL } from "node:url";

/** `{ session, extensionsResult, bindErrors }`; settings.json in agentDir names the executor model. */
export async function openSession(sdkEntry, extensionPath, cwd, agentDir, sessionDir) {
	const { createAgentSession, DefaultResourceLoader, SessionManager, SettingsManager } = await import(
		pathToFileURL(sdkEntry).href
	);
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
	return { session, extensionsResult, bindErrors };
}
