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
