// Only what htmx cannot do. Loaded from our origin, so the CSP allows it.

// Text from JSON shows each bidirectional control as a visible mark, one
// character for one, as the server does for pages (lib/display.py).
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const shown = (text) => String(text).replace(BIDI_CONTROLS, "\uFFFD");
document.addEventListener("change", (event) => {
  const el = event.target;
  if (el.matches("select[data-autosubmit]")) el.form.submit();
});
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy-target]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copyTarget);
  if (!source) return;
  const text = source.dataset.copyText || source.innerText;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const area = document.createElement("textarea");
    area.value = text; document.body.appendChild(area); area.select();
    document.execCommand("copy"); area.remove();
  }
  window.__lastCopied = text;
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = button.dataset.label || "Copy"; }, 1500);
});
document.body && document.body.addEventListener("htmx:responseError", (event) => {
  const box = document.getElementById("flash");
  if (box) box.textContent = "Something went wrong (" + event.detail.xhr.status + "). Please retry.";
});

// Stream an answer: the server sends text deltas as server-sent events, then
// the URL of the stored message, which htmx swaps in (badges, sources, copy).
function startStream(el) {
  if (el.dataset.streaming) return;
  el.dataset.streaming = "1";
  const out = el.querySelector(".answer-stream");
  const source = new EventSource(el.dataset.streamUrl);
  source.addEventListener("delta", (event) => {
    out.textContent += shown(JSON.parse(event.data).t);  // textContent: never parsed as HTML
  });
  source.addEventListener("done", (event) => {
    source.close();
    htmx.ajax("GET", JSON.parse(event.data).url, { target: el, swap: "outerHTML" });
  });
  source.onerror = () => {
    source.close();
    el.querySelector(".muted").textContent = "The connection was lost. Reload the page to see the answer or retry.";
  };
}
function scanStreams(root) {
  (root || document).querySelectorAll("[data-stream-url]").forEach(startStream);
}
document.addEventListener("DOMContentLoaded", () => scanStreams());
document.addEventListener("htmx:load", (event) => scanStreams(event.detail.elt.parentElement || document));
document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.detail.elt;
  if (form.matches && form.matches("form.ask") && event.detail.successful) form.reset();
});

// "@" in the question box: suggest documents by title; choosing one writes
// "@Title" into the question, which the server reads as a mention.
(function () {
  let timer = null;
  function box() { return document.querySelector("textarea[data-mention-url]"); }
  function list() { return document.getElementById("mention-list"); }
  function pending(area) {
    const before = area.value.slice(0, area.selectionStart);
    const match = before.match(/(^|\s)@([^@\n]{0,60})$/);
    return match ? { start: before.length - match[2].length - 1, query: match[2] } : null;
  }
  function close() {
    const ul = list();
    if (ul) { ul.hidden = true; ul.innerHTML = ""; }
  }
  function choose(li) {
    const area = box();
    const at = pending(area);
    if (!at) return close();
    const title = li.dataset.title;
    const after = area.value.slice(area.selectionStart);
    area.value = area.value.slice(0, at.start) + "@" + title + " " + after;
    const caret = at.start + title.length + 2;
    area.setSelectionRange(caret, caret);
    area.focus();
    close();
  }
  function render(documents) {
    const ul = list();
    ul.innerHTML = "";
    documents.forEach((d, i) => {
      const li = document.createElement("li");
      li.setAttribute("role", "option");
      li.id = "mention-" + i;
      li.dataset.title = d.title;
      li.textContent = shown(d.title);  // textContent: titles are never parsed as HTML
      if (d.filename && d.filename !== d.title) {  // the file name beside it (issue 32)
        const name = document.createElement("span");
        name.className = "muted filename";
        name.textContent = " " + d.filename;
        li.appendChild(name);
      }
      li.setAttribute("aria-selected", i === 0 ? "true" : "false");
      li.addEventListener("mousedown", (event) => { event.preventDefault(); choose(li); });
      ul.appendChild(li);
    });
    ul.hidden = documents.length === 0;
  }
  document.addEventListener("input", (event) => {
    const area = event.target;
    if (!area.matches || !area.matches("textarea[data-mention-url]")) return;
    const at = pending(area);
    clearTimeout(timer);
    if (!at) return close();
    timer = setTimeout(async () => {
      const url = area.dataset.mentionUrl + "?q=" + encodeURIComponent(at.query.trim());
      try {
        const response = await fetch(url, { headers: { "Accept": "application/json" } });
        if (response.ok) render((await response.json()).documents);
      } catch (_) { close(); }
    }, 150);
  });
  document.addEventListener("keydown", (event) => {
    const ul = list();
    if (!ul || ul.hidden || !event.target.matches("textarea[data-mention-url]")) return;
    const items = Array.from(ul.children);
    let index = items.findIndex((li) => li.getAttribute("aria-selected") === "true");
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      index = (index + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      items.forEach((li, i) => li.setAttribute("aria-selected", i === index ? "true" : "false"));
      event.target.setAttribute("aria-activedescendant", items[index].id);
    } else if ((event.key === "Enter" || event.key === "Tab") && index >= 0) {
      event.preventDefault();
      choose(items[index]);
    } else if (event.key === "Escape") {
      event.preventDefault();  // closes the list only, not the citation panel
      close();
    }
  });
  document.addEventListener("focusout", (event) => {
    if (event.target.matches && event.target.matches("textarea[data-mention-url]")) setTimeout(close, 100);
  });
})();

// The citation panel (chat, tabular) and the review tab's slide-over share
// id="citation-panel". Opening one moves focus into it; closing it (the ×
// button, Escape, or a tap beside the phone's bottom sheet) puts focus back
// on the badge or link that opened it.
const citationPanel = (() => {
  let opener = null;      // the element whose click filled the panel
  let openerHref = null;  // to find it again if polling re-rendered it
  let placeholder = null; // the panel's hint, shown again when it closes
  function el() { return document.getElementById("citation-panel"); }
  function isOpen() { const p = el(); return !!(p && p.querySelector(".panel")); }
  function opened(trigger) {
    const p = el();
    if (!p) return;
    if (trigger && !p.contains(trigger)) {
      opener = trigger;
      openerHref = trigger.getAttribute("href");
    }
    const target = p.querySelector(".panel") || p;
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: window.matchMedia("(max-width: 760px)").matches });
  }
  function close() {
    const p = el();
    if (!p || !isOpen()) return;
    p.innerHTML = placeholder || "";
    let back = opener && document.contains(opener) ? opener : null;
    if (!back && openerHref) back = document.querySelector(`a[href="${CSS.escape(openerHref)}"]`);
    opener = openerHref = null;
    if (back) back.focus();
  }
  document.addEventListener("DOMContentLoaded", () => {
    const p = el();
    if (p && !p.querySelector(".panel")) placeholder = p.innerHTML;
    if (p && p.querySelector(".panel")) opened(null);  // opened by URL (review detail page)
  });
  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "citation-panel" && isOpen()) {
      opened(event.detail.requestConfig && event.detail.requestConfig.elt);
    }
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-close-panel]")) { close(); return; }
    // Phone: a tap beside the bottom sheet closes it (a badge opens another).
    const p = el();
    if (isOpen() && !p.classList.contains("slideover") && window.matchMedia("(max-width: 1099px)").matches
        && getComputedStyle(p).position === "fixed" && !p.contains(event.target)
        && !event.target.closest("[hx-target='#citation-panel']")) {
      close();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !isOpen() || event.defaultPrevented) return;
    close();
  });
  return { close, isOpen };
})();

// The phone's menu button shows and hides the navigation.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-menu-toggle]");
  if (!button) return;
  const bar = button.closest("[data-topbar]");
  const open = !bar.classList.contains("is-open");
  bar.classList.toggle("is-open", open);
  button.setAttribute("aria-expanded", open ? "true" : "false");
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const bar = document.querySelector("[data-topbar].is-open");
  if (!bar) return;
  bar.classList.remove("is-open");
  const button = bar.querySelector("[data-menu-toggle]");
  button.setAttribute("aria-expanded", "false");
  button.focus();
});

// Lists that are open on a desktop fold on a narrower screen (the chat list).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("details[data-fold-below]").forEach((details) => {
    if (window.innerWidth < Number(details.dataset.foldBelow)) details.open = false;
  });
});

// The question box: Enter sends, Shift+Enter makes a new line. An open @
// suggestion list takes Enter first (it chooses a document), and so does a
// character being composed (an input method).
document.addEventListener("keydown", (event) => {
  const area = event.target;
  if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.defaultPrevented) return;
  if (!area.matches || !area.matches("textarea[data-enter-submits]")) return;
  event.preventDefault();
  if (!area.value.trim()) return;
  area.form.requestSubmit();
});

// Review tab: a stat card or review card narrows the list through the URL;
// the filter form follows, so the next change keeps what the card chose.
document.addEventListener("htmx:pushedIntoHistory", (event) => {
  const form = document.querySelector("form[data-testid=review-filters]");
  if (!form) return;
  const params = new URL(event.detail.path, window.location.origin).searchParams;
  form.querySelectorAll("select, input").forEach((field) => {
    if (!field.name || field.type === "hidden" || field === document.activeElement) return;
    if (field.type === "checkbox") field.checked = params.has(field.name);
    else field.value = params.get(field.name) || "";
  });
});

// The document viewer. A shared link may say where to open in its fragment
// (#page=25&span=S-E); the server reads the query, so such a link is loaded
// again with the query. Once open, the fragment names the page and span shown,
// so the address can be shared as it stands. The cited outline (or the mark in
// the text) is scrolled into view with some context above it.
(function () {
  function viewer() { return document.getElementById("viewer"); }
  function fromFragment() {
    const params = new URLSearchParams(window.location.hash.slice(1));
    return { page: params.get("page"), span: params.get("span") };
  }
  document.addEventListener("DOMContentLoaded", () => {
    const v = viewer();
    if (!v) return;
    const want = fromFragment();
    const query = new URLSearchParams(window.location.search);
    const span = /^\d+-\d+$/.test(want.span || "") ? want.span : null;
    const page = /^\d+$/.test(want.page || "") ? want.page : null;
    // Only a link without a query is read from its fragment: a query (a page
    // turned, a form sent) always says where the reader wanted to go.
    const bare = !query.has("at") && !query.has("page");
    if (bare && ((span && span !== v.dataset.span) || (page && page !== v.dataset.page))) {
      if (span) {
        const [start, end] = span.split("-");
        query.set("at", start); query.set("end", end);
      }
      if (page) query.set("page", page); else query.delete("page");
      window.location.replace(window.location.pathname + "?" + query.toString() + "#at");
      return;
    }
    const fragment = "page=" + v.dataset.page + (v.dataset.span ? "&span=" + v.dataset.span : "");
    history.replaceState(history.state, "", window.location.pathname + window.location.search + "#" + fragment);
    const bar = v.querySelector(".viewer-bar");
    const covered = bar && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
    const context = covered + Math.max(60, window.innerHeight * 0.15);
    const box = v.querySelector(".span-box--current");
    const mark = v.querySelector("mark#at");
    const text = v.querySelector(".viewer-body .viewer-text");
    if (box) {
      window.scrollTo({ top: box.getBoundingClientRect().top + window.scrollY - context });
      const scroller = v.querySelector(".viewer-scroll");
      const r = box.getBoundingClientRect(), s = scroller.getBoundingClientRect();
      if (r.left < s.left || r.right > s.right) scroller.scrollLeft += r.left - s.left - 24;
    } else if (mark && !text) {
      window.scrollTo({ top: mark.getBoundingClientRect().top + window.scrollY - context });
    }
    // The text beside the page scrolls on its own: bring the mark into it.
    if (mark && text && text.scrollHeight > text.clientHeight) {
      text.scrollTop += mark.getBoundingClientRect().top - text.getBoundingClientRect().top - 60;
    }
    v.dataset.ready = "1";  // the keys work from now on
  });
  // Left and right arrows turn the page (not while typing a page number).
  document.addEventListener("keydown", (event) => {
    const v = viewer();
    if (!v || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, [contenteditable], .viewer-scroll, .viewer-text")) return;
    const link = v.querySelector(`a[data-key="${event.key}"]`);
    if (link) { event.preventDefault(); link.click(); }
  });
})();

// Uploads: each file is sent on its own, with a row that appears at once and
// says how far it is: bytes sent, then (asked of the server by file name
// while the request runs, which in eager mode is while the file is read)
// the reading: "Reading page 3 of 48", "Ready · 48 pages", or why it failed.
// Without JavaScript the form posts every file at once and the page reloads.
(function () {
  const MB = 1024 * 1024;
  function size(bytes) {
    return bytes >= MB ? (bytes / MB).toFixed(1) + " MB" : Math.max(1, Math.round(bytes / 1024)) + " KB";
  }
  function row(queue, file) {
    const li = document.createElement("li");
    li.className = "upload-item";
    li.dataset.testid = "upload-item";
    const name = document.createElement("span");
    name.className = "upload-item__name";
    name.textContent = file.name;  // textContent: a file name is never parsed as HTML
    const bar = document.createElement("progress");
    bar.max = file.size || 1; bar.value = 0;
    bar.setAttribute("aria-label", "Upload of " + file.name);
    const state = document.createElement("span");
    state.className = "upload-item__state";
    state.textContent = "Waiting to upload · " + size(file.size);
    li.append(name, bar, state);
    queue.appendChild(li);
    return { li, bar, state };
  }
  function setState(item, key, text) {
    item.li.dataset.stage = key;
    item.state.textContent = text;
  }
  async function ask(form, name) {
    const url = form.dataset.progressUrl + "?name=" + encodeURIComponent(name);
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) return null;
    return (await response.json()).files[0].document;
  }
  function replaceRows(html) {
    const holder = document.createElement("div");
    holder.innerHTML = html;
    const fresh = holder.querySelector("#document-rows");
    const rows = document.getElementById("document-rows");
    if (!fresh || !rows) return [];
    const notes = Array.from(fresh.querySelectorAll("[data-testid=upload-note]")).map((p) => p.textContent);
    rows.replaceWith(fresh);
    htmx.process(fresh);
    return notes;
  }
  function send(form, file, item) {
    return new Promise((resolve) => {
      const data = new FormData();
      data.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
      const collection = form.querySelector("[name=collection]");
      if (collection && collection.value) data.append("collection", collection.value);
      data.append("return_query", window.location.search.slice(1));
      data.append("files", file, file.name);
      const xhr = new XMLHttpRequest();
      let polling = null;
      xhr.open("POST", form.action);
      xhr.setRequestHeader("HX-Request", "true");
      xhr.upload.onprogress = (event) => {
        if (!event.lengthComputable) return;
        item.bar.max = event.total; item.bar.value = event.loaded;
        setState(item, "sending", "Uploading · " + size(event.loaded) + " of " + size(event.total));
      };
      xhr.upload.onload = () => {
        item.bar.removeAttribute("value");  // indeterminate until the reading reports pages
        setState(item, "stored", "Uploaded · reading the file");
        const poll = async () => {
          try {
            const doc = await ask(form, file.name);
            if (!doc || xhr.readyState === 4) return;
            if (doc.total) { item.bar.max = doc.total; item.bar.value = doc.done; }
            setState(item, doc.stage, doc.label);
          } catch (_) { /* the next tick asks again */ }
        };
        poll();
        polling = setInterval(poll, 600);
      };
      xhr.onload = async () => {
        clearInterval(polling);
        if (xhr.status >= 400) {
          setState(item, "failed", "Upload refused (" + xhr.status + ")");
          return resolve();
        }
        const notes = replaceRows(xhr.responseText);
        try {
          const doc = await ask(form, file.name);
          if (doc) {
            if (doc.total) { item.bar.max = doc.total; item.bar.value = doc.stage === "ready" ? doc.total : doc.done; }
            setState(item, doc.stage, doc.label);
          } else {
            item.bar.value = item.bar.max;
            setState(item, "ready", notes.join(" ") || "Uploaded");
          }
          if (notes.length) item.state.textContent += " · " + notes.join(" ");
        } catch (_) { setState(item, "stored", "Uploaded"); }
        resolve();
      };
      xhr.onerror = () => {
        clearInterval(polling);
        setState(item, "failed", "The upload was interrupted: check the connection and upload again.");
        resolve();
      };
      xhr.send(data);
    });
  }
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("form[data-upload-form]") || !window.FormData || !window.XMLHttpRequest) return;
    const input = form.querySelector("input[type=file]");
    const files = Array.from(input.files || []);
    if (!files.length) return;
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    const queue = document.getElementById("upload-queue");
    queue.hidden = false;
    const items = files.map((file) => [file, row(queue, file)]);
    button.disabled = true;
    button.textContent = files.length > 1 ? "Uploading " + files.length + " files…" : "Uploading…";
    input.disabled = true;
    for (const [file, item] of items) await send(form, file, item);
    input.disabled = false;
    input.value = "";
    button.disabled = false;
    button.textContent = "Upload";
  });
})();
