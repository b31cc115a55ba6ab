/**
 * A filterable list for /advisor: pi-tui's SelectList (wrapping ↑/↓, enter, esc) under a search
 * line whose text fuzzy-filters the rows. SelectList's own filter only matches value prefixes, so
 * the rows are ranked here with pi-tui's fuzzyMatch and the list rebuilt (see rankPickerItems).
 */

import type { ExtensionUIContext, Theme } from "@mariozechner/pi-coding-agent";
import {
	type Component,
	type Focusable,
	fuzzyMatch,
	getKeybindings,
	Input,
	type SelectItem,
	SelectList,
	type SelectListTheme,
	truncateToWidth,
} from "@mariozechner/pi-tui";
import { PICKER_HINT, PICKER_NO_MATCH } from "../pi/notices.ts";

export interface PickerItem {
	value: string;
	label: string;
	description?: string;
	/**
	 * The texts the filter matches against, each on its own (e.g. the name, `provider/modelId`, the
	 * model id); default the label and the description.
	 */
	search?: readonly string[];
}

export interface PickerSpec {
	title: string;
	items: readonly PickerItem[];
	/** The row selected when the picker opens. */
	initialValue?: string;
	maxVisible?: number;
}

export type PickerStyle = Pick<Theme, "fg" | "bold">;

export const PICKER_MAX_ROWS = 10;

/**
 * The label column of a row with a description (the `No advisor` row, a marked or saved model):
 * pi-tui's default of 32 cells would cut a name and key such as
 * `Claude Opus 4.1 (anthropic/claude-opus-4-1)`; the description gets the rest of the line.
 */
export const PICKER_LABEL_COLUMN = Object.freeze({ minPrimaryColumnWidth: 32, maxPrimaryColumnWidth: 48 });

/**
 * How far behind the best row a row may score and still be listed: one word-boundary bonus of
 * fuzzyMatch (-10), so a query that starts a word of one row keeps that row, while rows it
 * matches only by scattered letters (`no` in "reasoNer mOck") drop out.
 */
export const PICKER_SCORE_MARGIN = 10;

/** The best fuzzyMatch score of `token` over the texts (lower is better); undefined: none matches. */
function bestScore(token: string, texts: readonly string[]): number | undefined {
	let best: number | undefined;
	for (const text of texts) {
		const match = fuzzyMatch(token, text);
		if (match.matches && (best === undefined || match.score < best)) best = match.score;
	}
	return best;
}

/**
 * The rows a query lists, best first. pi-tui's fuzzyMatch as fuzzyFilter uses it (every
 * whitespace-separated token must match; lower total score ranks higher), with two changes:
 * each token is scored against each search text on its own, so a greedy match across the
 * name/key boundary cannot hide a good match inside the key (`advr` finds `adv-r`); and only the
 * rows within PICKER_SCORE_MARGIN of the best are kept, since a subsequence of two or three
 * letters matches nearly every row. Ties keep the spec's order. An empty query lists every row.
 */
export function rankPickerItems<T extends PickerItem>(items: readonly T[], query: string): T[] {
	const tokens = query
		.trim()
		.split(/\s+/)
		.filter((t) => t.length > 0);
	if (tokens.length === 0) return [...items];
	const scored: { item: T; score: number; index: number }[] = [];
	items.forEach((item, index) => {
		const texts = item.search ?? [item.label, ...(item.description !== undefined ? [item.description] : [])];
		let score = 0;
		for (const token of tokens) {
			const s = bestScore(token, texts);
			if (s === undefined) return;
			score += s;
		}
		scored.push({ item, score, index });
	});
	if (scored.length === 0) return [];
	const best = Math.min(...scored.map((row) => row.score));
	return scored
		.filter((row) => row.score <= best + PICKER_SCORE_MARGIN)
		.sort((a, b) => a.score - b.score || a.index - b.index)
		.map((row) => row.item);
}

const LIST_KEYS = ["tui.select.up", "tui.select.down", "tui.select.confirm", "tui.select.cancel"] as const;

export class FilterPicker implements Component, Focusable {
	private readonly spec: PickerSpec;
	private readonly style: PickerStyle;
	private readonly requestRender: () => void;
	private readonly done: (value: string | undefined) => void;
	private readonly input = new Input();
	private list: SelectList | undefined;
	private filtered: PickerItem[] = [];
	private finished = false;
	private _focused = false;

	constructor(
		spec: PickerSpec,
		style: PickerStyle,
		requestRender: () => void,
		done: (value: string | undefined) => void,
	) {
		this.spec = spec;
		this.style = style;
		this.requestRender = requestRender;
		this.done = done;
		this.rebuild("");
		const initial = spec.items.findIndex((item) => item.value === spec.initialValue);
		if (initial > 0) this.list?.setSelectedIndex(initial);
	}

	get focused(): boolean {
		return this._focused;
	}

	set focused(value: boolean) {
		this._focused = value;
		this.input.focused = value;
	}

	/** The rows currently listed (after filtering), for tests and the fallback dialog. */
	visibleValues(): string[] {
		return this.filtered.map((item) => item.value);
	}

	selectedValue(): string | undefined {
		return this.list?.getSelectedItem()?.value;
	}

	private listTheme(): SelectListTheme {
		return {
			selectedPrefix: (t) => this.style.fg("accent", t),
			selectedText: (t) => this.style.fg("accent", t),
			description: (t) => this.style.fg("muted", t),
			scrollInfo: (t) => this.style.fg("dim", t),
			noMatch: (t) => this.style.fg("warning", t),
		};
	}

	private rebuild(query: string): void {
		this.filtered = rankPickerItems(this.spec.items, query);
		if (this.filtered.length === 0) {
			this.list = undefined;
			return;
		}
		const rows: SelectItem[] = this.filtered.map((item) => {
			const row: SelectItem = { value: item.value, label: item.label };
			if (item.description !== undefined) row.description = item.description;
			return row;
		});
		const list = new SelectList(rows, this.spec.maxVisible ?? PICKER_MAX_ROWS, this.listTheme(), {
			...PICKER_LABEL_COLUMN,
		});
		list.onSelect = (row) => this.finish(row.value);
		list.onCancel = () => this.finish(undefined);
		this.list = list;
	}

	private finish(value: string | undefined): void {
		if (this.finished) return;
		this.finished = true;
		this.done(value);
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (LIST_KEYS.some((key) => kb.matches(data, key))) {
			if (this.list !== undefined) this.list.handleInput(data);
			else if (kb.matches(data, "tui.select.cancel")) this.finish(undefined);
		} else {
			const before = this.input.getValue();
			this.input.handleInput(data);
			const after = this.input.getValue();
			if (after !== before) this.rebuild(after);
		}
		this.requestRender();
	}

	invalidate(): void {
		this.input.invalidate();
		this.list?.invalidate();
	}

	render(width: number): string[] {
		const lines = [truncateToWidth(this.style.bold(this.style.fg("accent", this.spec.title)), width)];
		lines.push(...this.input.render(width));
		if (this.list === undefined) lines.push(truncateToWidth(this.style.fg("warning", `  ${PICKER_NO_MATCH}`), width));
		else lines.push(...this.list.render(width));
		lines.push(truncateToWidth(this.style.fg("dim", PICKER_HINT), width));
		return lines;
	}
}

/**
 * Shows the picker and resolves with the chosen value, or undefined when the user cancels. A host
 * without custom components (RPC clients) gets a plain select dialog over the labels instead.
 */
export async function pick(ui: ExtensionUIContext, spec: PickerSpec): Promise<string | undefined> {
	let shown = false;
	const value = await ui.custom<string | undefined>((tui, theme, _keybindings, done) => {
		shown = true;
		return new FilterPicker(spec, theme, () => tui.requestRender(), done);
	});
	if (shown) return value;
	const labels = spec.items.map((item) => item.label);
	const chosen = await ui.select(spec.title, labels);
	return spec.items.find((item) => item.label === chosen)?.value;
}
