/**
 * The tool catalogue: every tool registered in the executor's session, one line each. Names and
 * first sentences only — the advisor judges tool choice and never calls these, and a schema edit
 * in any extension would otherwise invalidate the head of every cached request.
 */

import { CATALOGUE_HEADER, TAGS } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { clip, firstSentence, oneLine } from "./text-shape.ts";

export interface CatalogueEntry {
	name: string;
	description: string;
}

const DESCRIPTION_MAX = 200;

export function renderCatalogue(tools: readonly CatalogueEntry[]): string {
	const lines = tools.map((tool) => {
		const name = clip(oneLine(neutralise(tool.name)), 64);
		const purpose = clip(oneLine(neutralise(firstSentence(tool.description))), DESCRIPTION_MAX);
		return purpose.length > 0 ? `- ${name} — ${purpose}` : `- ${name}`;
	});
	return `<${TAGS.catalogue}>\n${CATALOGUE_HEADER}\n${lines.join("\n")}\n</${TAGS.catalogue}>\n`;
}
