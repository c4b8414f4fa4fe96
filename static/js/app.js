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
