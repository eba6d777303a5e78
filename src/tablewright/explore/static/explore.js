// tablewright explore: copy buttons, the BETWEEN field, live changes. No libraries, nothing fetched.
"use strict";

function copyText(text, button) {
  const done = () => { const old = button.textContent; button.textContent = "copied"; setTimeout(() => { button.textContent = old; }, 900); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else {
    fallbackCopy(text, done);
  }
  button.dataset.copied = text;
}

function fallbackCopy(text, done) {
  const area = document.createElement("textarea");
  area.value = text;
  document.body.appendChild(area);
  area.select();
  try { document.execCommand("copy"); } finally { area.remove(); }
  done();
}

function setUpCopy() {
  // The plain JSON of each row is the server's text, as on the item page: parsed here, a number past
  // 2^53 would be rounded.
  let wire = null, plain = null;
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".copy, .copy-pre");
    if (!button) return;
    if (button.classList.contains("copy-pre")) {
      copyText(document.getElementById(button.dataset.target).textContent, button);
      return;
    }
    const index = Number(button.closest(".item").dataset.index);
    if (button.dataset.copy === "ddb") {
      wire = wire || JSON.parse(document.getElementById("items-data").textContent);
      copyText(JSON.stringify(wire[index], null, 2), button);
    } else {
      plain = plain || JSON.parse(document.getElementById("items-plain").textContent);
      copyText(plain[index], button);
    }
  });
}

function setUpBetween() {
  const op = document.getElementById("q-op"), second = document.getElementById("q-sk2");
  if (!op || !second) return;
  const show = () => { second.style.display = op.value === "between" ? "" : "none"; };
  op.addEventListener("change", show);
  show();
}

function describeChange(change) {
  const keys = Object.entries(change.keys).map(([name, value]) => `${name}=${Object.values(value)[0]}`).join(", ");
  return `${change.event} ${keys}`;
}

function setUpLive() {
  const section = document.getElementById("live");
  if (!section || !window.EventSource) return;
  const list = document.getElementById("live-changes"), state = document.getElementById("live-state");
  const source = new EventSource(section.dataset.src);
  source.addEventListener("ready", () => { state.textContent = "watching the stream"; });
  source.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    const entry = document.createElement("li");
    entry.className = "change " + change.event.toLowerCase();
    entry.textContent = describeChange(change);
    entry.title = JSON.stringify(change.new || change.old);
    list.prepend(entry);
    while (list.children.length > 100) list.lastChild.remove();
  });
  source.addEventListener("failure", (event) => { state.textContent = "stream failed: " + JSON.parse(event.data); source.close(); });
  source.onerror = () => { state.textContent = "reconnecting…"; };
}

document.addEventListener("DOMContentLoaded", () => { setUpCopy(); setUpBetween(); setUpLive(); });
