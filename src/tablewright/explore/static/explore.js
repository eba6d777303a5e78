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

// DynamoDB JSON -> plain JSON: numbers as numbers where exact, sets as lists, binary as base64 text.
function plainValue(value) {
  const [kind, inner] = Object.entries(value)[0];
  switch (kind) {
    case "N": return String(Number(inner)) === inner ? Number(inner) : inner;
    case "NS": return inner.map((n) => (String(Number(n)) === n ? Number(n) : n));
    case "NULL": return null;
    case "L": return inner.map(plainValue);
    case "M": return plainItem(inner);
    default: return inner;
  }
}

function plainItem(item) {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, plainValue(value)]));
}

function setUpCopy() {
  let items = null;
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".copy, .copy-pre");
    if (!button) return;
    if (button.classList.contains("copy-pre")) {
      copyText(document.getElementById(button.dataset.target).textContent, button);
      return;
    }
    items = items || JSON.parse(document.getElementById("items-data").textContent);
    const index = Number(button.closest(".item").dataset.index);
    const value = button.dataset.copy === "ddb" ? items[index] : plainItem(items[index]);
    copyText(JSON.stringify(value, null, 2), button);
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
