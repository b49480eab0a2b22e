// The page's scripts load once the page has loaded (docs/_templates/layout.html): each part
// runs then, or as the page is parsed if it is loaded earlier.
function ready(run) {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
}

// The theme's navigation toggles (<details><summary> with only a chevron icon) have no name for
// a screen reader: give each one, in the page's language, from the entry it opens.
ready(() => {
  const chinese = (document.documentElement.lang || "").toLowerCase().startsWith("zh");
  for (const summary of document.querySelectorAll("details > summary")) {
    if (summary.textContent.trim() || summary.getAttribute("aria-label")) continue;
    const entry = summary.parentElement.parentElement.querySelector(":scope > a");
    const name = entry ? entry.textContent.trim() : "";
    summary.setAttribute(
      "aria-label",
      chinese ? `展开或收起“${name}”的子页面` : `Show or hide the pages under “${name}”`,
    );
  }
});

// myst-nb names its folded cells' toggle in English whatever the page's language; the toggle shows
// its prompt, so in Chinese the name says what it does in Chinese.
ready(() => {
  if (!(document.documentElement.lang || "").toLowerCase().startsWith("zh")) return;
  for (const summary of document.querySelectorAll('summary[aria-label="Toggle hidden content"]')) {
    summary.setAttribute("aria-label", "显示或隐藏折叠的内容");
  }
});

// A formula wider than the column scrolls in its box (custom.css): as the theme does for code that
// scrolls, the box is then a stop of the keyboard, so that the arrow keys reach its whole width.
function mathTabStops() {
  for (const box of document.querySelectorAll("div.math > .katex-display")) {
    box.tabIndex = box.scrollWidth > box.clientWidth + 1 ? 0 : -1;
  }
}
ready(mathTabStops);
window.addEventListener("resize", mathTabStops);
