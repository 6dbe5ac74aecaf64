import type { Page } from 'playwright-core';

/** A text of the page whose contrast with its background is below WCAG AA's 4.5:1. */
export interface LowContrast {
  text: string;
  ratio: number;
}

// Runs in the page: for each visible element with text of its own (disabled controls are exempt),
// the contrast of its colour with the first opaque background behind it, by WCAG 2's formula.
const FIND_LOW_CONTRAST = `(() => {
  const rgb = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
  const channel = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const [r, g, b, a = 1] = rgb(getComputedStyle(node).backgroundColor);
      if (a >= 1) return [r, g, b];
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const element of document.querySelectorAll('body *')) {
    const ownText = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim());
    if (!ownText || element.closest('[disabled], .sr-only') || element.getClientRects().length === 0) continue;
    const style = getComputedStyle(element);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const [a, b] = [luminance(rgb(style.color)), luminance(background(element))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) low.push({ text: element.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100 });
  }
  return low;
})()`;

/** The page's texts below AA contrast, as it is shown now. */
export async function lowContrastTexts(page: Page): Promise<LowContrast[]> {
  return (await page.evaluate(FIND_LOW_CONTRAST)) as LowContrast[];
}
