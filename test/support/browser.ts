import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** The system's Chromium (Debian's package), the only browser the tests use: never a download. */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumPresent = (): boolean => existsSync(CHROMIUM);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Shared memory in /tmp: a small /dev/shm (as in containers) stalls the renderer of a tall page.
  '--disable-dev-shm-usage',
];

/**
 * How long a screenshot may take. A screenshot is a record of a step for whoever reads a failure, not a
 * check: one that Chromium does not take in time leaves a note in its place and the test goes on to
 * its assertions.
 */
const SCREENSHOT_MS = 20_000;

/** A headless Chromium with a fresh profile, and a folder for the screenshots of each step. */
export interface TestBrowser {
  page: Page;
  context: BrowserContext;
  /** Where the screenshots go: a folder of os.tmpdir(), never the repository. */
  screenshots: string;
  screenshot(step: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(viewport: { width: number; height: number }): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const screenshots = mkdtempSync(join(tmpdir(), 'developers-page-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  let step = 0;
  return {
    page,
    context,
    screenshots,
    screenshot: async (name: string) => {
      step++;
      const file = join(screenshots, `${String(step).padStart(2, '0')}-${name}`);
      try {
        await page.screenshot({ path: `${file}.png`, fullPage: true, timeout: SCREENSHOT_MS });
      } catch (error) {
        writeFileSync(
          `${file}.txt`,
          `no screenshot: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
