// A table filled page by page from a cursor list, with "Load more" while the API says there is more.
import { fill } from './dom.js';
import { notify } from './feedback.js';

const MAX_LIMIT = 100;

export class PagedList {
  /**
   * fetchPage(cursor, limit) answers a list envelope; row(item) builds one table row; emptyText(error)
   * says why there are no rows.
   */
  constructor({ tbody, more, columns, pageSize, fetchPage, row, emptyText }) {
    Object.assign(this, { tbody, more, columns, pageSize, fetchPage, row, emptyText });
    this.items = [];
    this.cursor = null;
    /** The rows a "Load more" on its way asks for: a refresh started meanwhile loads them too. */
    this.pendingRows = 0;
    /** Bumped by each clear, refresh and "Load more": only the answer to the latest request is shown. */
    this.generation = 0;
    more.addEventListener('click', () => this.loadMore().catch((error) => notify(error.message, true)));
  }

  /** Empties the table at once, showing `text`. */
  clear(text) {
    this.generation++;
    this.items = [];
    this.cursor = null;
    this.pendingRows = 0;
    this.more.hidden = true;
    fill(this.tbody, [], this.columns, text);
  }

  /**
   * Loads the first page again, as many rows as are shown now and asked for by a "Load more" on its
   * way (a refresh keeps "Load more" pages, and replaces the answer of one it overlaps).
   */
  async refresh() {
    const generation = ++this.generation;
    const limit = Math.min(MAX_LIMIT, Math.max(this.pageSize, this.items.length + this.pendingRows));
    let page;
    try {
      page = await this.fetchPage(null, limit);
    } catch (error) {
      if (generation === this.generation) this.clear(this.emptyText(error));
      return;
    }
    if (generation !== this.generation) return;
    this.pendingRows = 0;
    this.items = page.data;
    this.cursor = page.has_more ? page.next_cursor : null;
    this.render();
  }

  /** Appends the next page; a refresh on its way would drop these rows, so its answer is not shown. */
  async loadMore() {
    if (!this.cursor) return;
    const generation = ++this.generation;
    this.pendingRows = this.pageSize;
    this.more.disabled = true;
    try {
      const page = await this.fetchPage(this.cursor, this.pageSize);
      if (generation !== this.generation) return;
      this.pendingRows = 0;
      this.items = this.items.concat(page.data);
      this.cursor = page.has_more ? page.next_cursor : null;
      this.render();
    } finally {
      this.more.disabled = false;
    }
  }

  render() {
    fill(this.tbody, this.items.map(this.row), this.columns, this.emptyText(null));
    this.more.hidden = this.cursor === null;
    this.more.textContent = 'Load more (' + this.items.length + ' shown)';
  }
}
