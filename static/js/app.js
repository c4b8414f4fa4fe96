// Only what htmx cannot do. Loaded from our origin, so the CSP allows it.
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
    out.textContent += JSON.parse(event.data).t;  // textContent: never parsed as HTML
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
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-close-panel]")) {
    document.getElementById("citation-panel").innerHTML = "";
  }
});

// Review tab: Escape closes the citation slide-over (the × button does too).
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const panel = document.getElementById("citation-panel");
  if (panel && panel.classList.contains("slideover")) panel.innerHTML = "";
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
      li.textContent = d.title;  // textContent: titles are never parsed as HTML
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
      close();
    }
  });
  document.addEventListener("focusout", (event) => {
    if (event.target.matches && event.target.matches("textarea[data-mention-url]")) setTimeout(close, 100);
  });
})();
