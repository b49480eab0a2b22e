/* The head explorer (docs/_ext/head_explorer.py writes its container, data and text).

   Reads the JSON embedded in each .head-explorer container and draws, in inline SVG, the
   tokens of one sentence twice (left: queries, right: keys) with a line from each query to each
   key it attends to: one colour per head shown, the line's opacity its attention weight. Every
   line carries data-layer, data-head, data-query, data-key and data-weight (the JSON's number).

   State: a sentence, a layer, the heads shown, and the query token chosen (focused or clicked;
   null shows every token's lines). Pointing at a token shows its lines until the pointer
   leaves, then the chosen token's again. Arrow keys move between tokens; Escape shows all.
   Plain JavaScript, nothing fetched: the page works from file:// too. */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = 8; // head colours in the style sheet (--hx-head-0 ... -7), reused in turn
  const MIN_WEIGHT = 0.01; // lighter lines are not drawn
  const WIDTH = 340; // the viewBox: the drawing scales to the column, up to the CSS max-width
  const LEFT = 128; // the query tokens end here (right-aligned) ...
  const RIGHT = 212; // ... and the key tokens start here
  const TOP = 26; // room for the column headings
  let count = 0;

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
  }

  function el(name, attrs, parent) {
    const node = document.createElement(name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function readJSON(root, selector) {
    return JSON.parse(root.querySelector(selector).textContent);
  }

  function Explorer(root) {
    const id = "hx" + count++;
    const data = readJSON(root, ":scope > script.hx-data");
    const text = readJSON(root, ":scope > script.hx-text");
    const tasks = readJSON(root, ":scope > script.hx-tasks");
    const gloss = root.dataset.gloss === "true";
    const ui = root.querySelector(":scope > .hx-ui");
    const first = data.sentences[0];
    const role = data.roles.agreement || data.roles[first.task] || { layer: 0, head: 0 };
    const state = {
      sentence: 0,
      layer: role.layer,
      heads: new Set([role.head]),
      chosen: first.query,
      pointed: null,
    };

    // ---- Controls ----------------------------------------------------------------------------
    const row = el("div", { class: "hx-controls hx-sentence-row" }, ui);
    el("label", { class: "hx-field", for: id + "-sentence" }, row).textContent = text.sentence;
    const select = el("select", { id: id + "-sentence", class: "hx-sentence" }, row);
    const controls = el("div", { class: "hx-controls" }, ui);
    const groups = {};
    data.sentences.forEach((sentence, i) => {
      if (!groups[sentence.task]) {
        groups[sentence.task] = el("optgroup", { label: text["task_" + sentence.task] }, select);
      }
      const option = el("option", { value: String(i) }, groups[sentence.task]);
      option.textContent = sentence.tokens.join(" ");
    });

    const layers = el("fieldset", { class: "hx-layers" }, controls);
    el("legend", {}, layers).textContent = text.layer;
    for (let l = 0; l < data.layers; l++) {
      const label = el("label", { class: "hx-choice" }, layers);
      const radio = el("input", { type: "radio", name: id + "-layer", value: String(l) }, label);
      radio.checked = l === state.layer;
      radio.addEventListener("change", () => {
        state.layer = l;
        draw();
      });
      label.appendChild(document.createTextNode(fill(text.layer_n, { n: l })));
    }

    const heads = el("div", { class: "hx-heads", role: "group", "aria-labelledby": id + "-heads" }, controls);
    el("span", { id: id + "-heads", class: "hx-heads-label" }, heads).textContent = text.heads;
    const toggles = [];
    for (let h = 0; h < data.heads; h++) {
      const button = el("button", { type: "button", class: "hx-head hx-h" + (h % COLOURS), "data-head": String(h) }, heads);
      el("span", { class: "hx-swatch", "aria-hidden": "true" }, button);
      button.appendChild(document.createTextNode(fill(text.head_n, { n: h })));
      button.addEventListener("click", () => {
        if (state.heads.has(h)) state.heads.delete(h);
        else state.heads.add(h);
        draw();
      });
      toggles.push(button);
    }

    const answer = el("p", { class: "hx-answer" }, ui);
    const figure = el("div", { class: "hx-figure" }, ui);
    const summary = el("p", { class: "hx-summary", role: "status", "aria-live": "polite" }, ui);
    const legend = el("p", { class: "hx-legend" }, ui);
    el("span", {}, legend).textContent = text.legend + " ";
    const marks = el("span", { class: "hx-marks" }, legend);

    // ---- The drawing: tokens once per sentence, lines at every change --------------------------
    let lines = null;
    let tokens = [];
    let rowHeight = 0;

    function y(i) {
      return TOP + i * rowHeight + (gloss ? 14 : rowHeight / 2);
    }

    function fit(label, room) {
      // a token longer than its column is squeezed into it, never cut
      if (label.getComputedTextLength && label.getComputedTextLength() > room) {
        label.setAttribute("textLength", String(room));
        label.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }

    function underline(label, mark, parent) {
      const box = label.getBBox();
      if (!box.width) return;
      svg("line", {
        class: "hx-mark hx-mark-" + mark, x1: box.x, x2: box.x + box.width,
        y1: box.y + box.height + 1, y2: box.y + box.height + 1,
      }, parent);
    }

    function column(sentence, side, parent) {
      const left = side === "query";
      const anchor = left ? "end" : "start";
      const x = left ? LEFT : RIGHT;
      const kinds = tasks[sentence.task].marks;
      const markAt = {};
      kinds.forEach((mark, i) => { markAt[sentence.marks[mark]] = i === 0 ? "solid" : "dotted"; });
      const heading = svg("text", { class: "hx-heading", x, y: 14, "text-anchor": anchor }, parent);
      heading.textContent = left ? text.queries : text.keys;
      const made = [];
      sentence.tokens.forEach((token, i) => {
        const group = svg("g", { class: "hx-tok", "data-index": String(i) }, parent);
        if (left) {
          svg("rect", { class: "hx-hit", x: 2, y: TOP + i * rowHeight + 1, width: LEFT + 4, height: rowHeight - 2, rx: 3 }, group);
        }
        const label = svg("text", { class: "hx-word", x, y: y(i), "text-anchor": anchor, "dominant-baseline": "middle" }, group);
        label.textContent = token;
        fit(label, left ? LEFT - 6 : WIDTH - RIGHT - 2);
        if (markAt[i]) underline(label, markAt[i], group);
        if (gloss && sentence.gloss[i]) {
          const small = svg("text", { class: "hx-gloss", x, y: y(i) + 19, "text-anchor": anchor, "dominant-baseline": "middle" }, group);
          small.textContent = sentence.gloss[i];
        }
        made.push(group);
      });
      return made;
    }

    function build() {
      const sentence = data.sentences[state.sentence];
      rowHeight = gloss ? 40 : 24;
      const height = TOP + sentence.tokens.length * rowHeight + 4;
      figure.textContent = "";
      const drawing = svg("svg", {
        viewBox: `0 0 ${WIDTH} ${height}`, class: "hx-svg", role: "group",
        "aria-label": text.region, "data-sentence": String(state.sentence),
      }, figure);
      lines = svg("g", { class: "hx-lines", "aria-hidden": "true" }, drawing);
      const keys = svg("g", { class: "hx-keys", "aria-hidden": "true" }, drawing);
      column(sentence, "key", keys);
      const queries = svg("g", { class: "hx-queries", role: "group", "aria-label": text.queries }, drawing);
      tokens = column(sentence, "query", queries);
      tokens.forEach((group, i) => {
        const name = fill(text.token_name, { token: sentence.tokens[i], n: i });
        group.setAttribute("role", "button");
        group.setAttribute("aria-label", gloss && sentence.gloss[i] ? `${name} (${sentence.gloss[i]})` : name);
        group.addEventListener("focus", () => choose(i));
        group.addEventListener("click", () => { choose(i); group.focus(); });
        group.addEventListener("pointerenter", () => { state.pointed = i; draw(); });
        group.addEventListener("pointerleave", () => { state.pointed = null; draw(); });
        group.addEventListener("keydown", (event) => keys_(event, i));
      });
      const kinds = tasks[sentence.task].marks;
      marks.textContent = fill(text.marks, { solid: text["mark_" + kinds[0]], dotted: text["mark_" + kinds[1]] });
      answer.textContent = fill(text.answer, {
        answer: text["value_" + sentence.answer], prediction: text["value_" + sentence.prediction],
      });
    }

    function keys_(event, i) {
      const last = tokens.length - 1;
      const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: last }[event.key];
      if (to !== undefined) {
        event.preventDefault();
        tokens[Math.max(0, Math.min(last, to))].focus();
      } else if (event.key === "Escape") {
        event.preventDefault();
        choose(null);
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        choose(i);
      }
    }

    function choose(i) {
      if (state.chosen === i) return;
      state.chosen = i;
      draw();
    }

    function describe(sentence, shown) {
      if (!shown.length) return text.summary_none;
      if (state.chosen === null) return fill(text.summary_all, { layer: state.layer });
      const q = state.chosen;
      return shown.map((h) => {
        const row = sentence.weights[state.layer][h][q];
        const top = row.map((w, k) => [w, k]).filter(([w]) => w > 0)
          .sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 3)
          .map(([w, k]) => fill(text.summary_weight, { weight: w.toFixed(2), token: sentence.tokens[k] }));
        const weights = top.reduce((head, next) => fill(text.summary_join, { head, next }));
        return fill(text.summary, { head: h, layer: state.layer, token: sentence.tokens[q], weights });
      }).join(" ");
    }

    function draw() {
      const sentence = data.sentences[state.sentence];
      const shown = [...state.heads].sort((a, b) => a - b);
      const row = state.pointed !== null ? state.pointed : state.chosen;
      lines.textContent = "";
      for (const h of shown) {
        const weights = sentence.weights[state.layer][h];
        weights.forEach((weights_q, q) => {
          if (row !== null && q !== row) return;
          weights_q.forEach((w, k) => {
            if (w < MIN_WEIGHT) return;
            svg("line", {
              class: "hx-line hx-h" + (h % COLOURS), x1: LEFT + 8, y1: y(q), x2: RIGHT - 6, y2: y(k),
              "stroke-opacity": String(w), "data-layer": String(state.layer), "data-head": String(h),
              "data-query": String(q), "data-key": String(k), "data-weight": String(w),
            }, lines);
          });
        });
      }
      tokens.forEach((group, i) => {
        group.setAttribute("aria-pressed", String(i === state.chosen));
        group.setAttribute("tabindex", i === (state.chosen === null ? 0 : state.chosen) ? "0" : "-1");
        group.classList.toggle("hx-row", i === row);
      });
      toggles.forEach((button, h) => button.setAttribute("aria-pressed", String(state.heads.has(h))));
      const text_ = describe(sentence, shown);
      if (summary.textContent !== text_) summary.textContent = text_;
    }

    select.addEventListener("change", () => {
      state.sentence = Number(select.value);
      state.chosen = data.sentences[state.sentence].query;
      state.pointed = null;
      build();
      draw();
    });
    ui.hidden = false; // before drawing: the tokens are measured
    build();
    draw();
    root.dataset.ready = "true";
  }

  function start() {
    for (const root of document.querySelectorAll(".head-explorer:not([data-ready])")) Explorer(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
