/** Reading the requests an advisor model received (pi-ai Messages) in tests. */
import type { Message } from "@mariozechner/pi-ai";
import type { CatalogueEntry } from "../../src/render/catalogue.ts";
import { type LedgerRequest, type RequestUnit, unitAt, unitCount } from "../../src/render/request-units.ts";

export function texts(message: Message): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`));
}

/** The provider-neutral flattening the prefix invariant compares (render/request-units.ts flatten). */
export function flattenParts(messages: readonly Message[], upTo?: { messageIndex: number; partCount: number }): string {
	const last = upTo ?? { messageIndex: messages.length - 1, partCount: texts(messages[messages.length - 1]!).length };
	let out = "";
	for (let m = 0; m <= last.messageIndex; m++) {
		const parts = texts(messages[m]!);
		const count = m === last.messageIndex ? last.partCount : parts.length;
		for (let p = 0; p < count; p++) out += `${p === 0 ? "\u0001" : ""}${messages[m]!.role}\u0000${parts[p]}`;
	}
	return out;
}

/** The tool catalogue a request carried, read back from its first message (`- name — purpose` lines). */
export function sentCatalogue(messages: readonly Message[]): CatalogueEntry[] {
	return texts(messages[0]!)
		.join("")
		.split("\n")
		.filter((line) => line.startsWith("- "))
		.map((line) => {
			const [name, description] = line.slice(2).split(" — ");
			return { name: name!, description: description! };
		});
}

/** Every unit of a request as one array: a test compares them whole, where src/ reads one at a time. */
export function allUnits(request: LedgerRequest): RequestUnit[] {
	return Array.from({ length: unitCount(request) }, (_, i) => unitAt(request, i)!);
}
