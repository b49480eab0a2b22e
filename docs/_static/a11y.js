// The theme's navigation toggles (<details><summary> with only a chevron icon) have no name for
// a screen reader: give each one, in the page's language, from the entry it opens.
document.addEventListener("DOMContentLoaded", () => {
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
