/* The head explorer (docs/_ext/json_directives.py writes its container, data and text).

   The trained sentence model of the gallery example runs here, in plain JavaScript, on the
   sentence the reader writes from its vocabulary: token and position embeddings, Q, K and V,
   each head's causal softmax, the merge with any heads switched off (their slice of the
   concatenated heads zeroed before W^O, as the example's forward_without does), W^O, the
   residual and the readout of the query word. window.HeadExplorer.run exposes the forward pass,
   which the site's tests compare with PyTorch's outputs.

   The drawing, in inline SVG: the tokens twice (left: queries, right: keys) with a line from
   each query to each key it attends to, one colour per head shown, the line's opacity its
   attention weight; every line carries data-head, data-query, data-key and data-weight. Above
   it, a small map of every head's attention (the model view); choosing a head there shows it
   large. The reader's text is data only: it reaches the page as textContent, never as markup.
   Nothing is fetched: the page works from file:// too. */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = 8; // head colours in the style sheet (--hx-head-0 ... -7), reused in turn
  const MIN_WEIGHT = 0.01; // lighter lines are not drawn
  const WIDTH = 340; // the viewBox: the drawing scales to the column, up to the CSS max-width
  const LEFT = 128; // the query tokens end here (right-aligned) ...
  const RIGHT = 212; // ... and the key tokens start here
  const TOP = 26; // room for the column headings
  const SUGGESTIONS = 12; // words offered as the reader types
  const NOTHING = 0.02; // a head passing on less than this share of the largest passes on "almost nothing"
  let count = 0;

  // ---- The model ---------------------------------------------------------------------------

  function decode(base64) {
    // float32 little-endian bytes, read exactly (into doubles)
    const bytes = atob(base64);
    const view = new DataView(new ArrayBuffer(bytes.length));
    for (let i = 0; i < bytes.length; i++) view.setUint8(i, bytes.charCodeAt(i));
    const values = new Float64Array(bytes.length / 4);
    for (let i = 0; i < values.length; i++) values[i] = view.getFloat32(4 * i, true);
    return values;
  }

  function model(data) {
    const p = {};
    for (const [name, tensor] of Object.entries(data.model.parameters)) {
      p[name] = { shape: tensor.shape, values: decode(tensor.data) };
    }
    const [positions, E] = p["positions.weight"].shape;
    const index = new Map(data.model.vocabulary.map((word, i) => [word, i]));
    const grammar = {}; // the example's patterns over the words' codes, per task: trained, wider
    for (const [task, patterns] of Object.entries(data.grammar.patterns)) {
      grammar[task] = {};
      for (const [which, pattern] of Object.entries(patterns)) {
        grammar[task][which] = new RegExp(`^(?:${pattern})$`, "d"); // "d": where each role is
      }
    }
    return { p, E, H: data.heads, positions, index, grammar, tasks: Object.keys(data.model.classes) };
  }

  function linear(weight, bias, x, from, rows) {
    // rows from..from+rows of (weight @ x + bias), weight stored row-major
    const cols = x.length;
    const out = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      let sum = bias.values[from + r];
      const at = (from + r) * cols;
      for (let c = 0; c < cols; c++) sum += weight.values[at + c] * x[c];
      out[r] = sum;
    }
    return out;
  }

  // The forward pass on word indices `ids` (the query is the last word) for `task`, with the
  // heads in `removed` switched off: every head's weights[h][q][k] and the task's two logits.
  function run(m, ids, task, removed) {
    const { p, E, H } = m;
    const D = E / H;
    const n = ids.length;
    const h = ids.map((id, i) => {
      const x = new Float64Array(E);
      for (let e = 0; e < E; e++) {
        x[e] = p["tokens.weight"].values[id * E + e] + p["positions.weight"].values[i * E + e];
      }
      return x; // (E,): step 1, the input
    });
    const W = p["attn.in_proj_weight"], b = p["attn.in_proj_bias"];
    const q = h.map((x) => linear(W, b, x, 0, E)); // step 2: (n, E) each
    const k = h.map((x) => linear(W, b, x, E, E));
    const v = h.map((x) => linear(W, b, x, 2 * E, E));
    const scale = 1 / Math.sqrt(D);
    const weights = [];
    const merged = h.map(() => new Float64Array(E)); // (n, E): the heads side by side
    for (let head = 0; head < H; head++) { // steps 3 and 4: head `head` reads features head*D..
      const rows = [];
      for (let i = 0; i < n; i++) {
        const scores = [];
        for (let j = 0; j <= i; j++) { // causal: no later key
          let s = 0;
          for (let d = head * D; d < (head + 1) * D; d++) s += q[i][d] * k[j][d];
          scores.push(s * scale);
        }
        const top = Math.max(...scores);
        const exp = scores.map((s) => Math.exp(s - top));
        const total = exp.reduce((a, e) => a + e, 0);
        const row = new Array(n).fill(0);
        exp.forEach((e, j) => { row[j] = e / total; });
        rows.push(row);
        if (removed.has(head)) continue; // step 5: its slice stays zero
        for (let d = head * D; d < (head + 1) * D; d++) {
          let s = 0;
          for (let j = 0; j <= i; j++) s += row[j] * v[j][d];
          merged[i][d] = s;
        }
      }
      weights.push(rows);
    }
    const last = n - 1; // only the query word is read out
    const out = linear(p["attn.out_proj.weight"], p["attn.out_proj.bias"], merged[last], 0, E); // step 6
    const residual = h[last].map((x, e) => x + out[e]);
    const t = m.tasks.indexOf(task);
    const logits = Array.from(linear(p["readout.weight"], p["readout.bias"], residual, 2 * t, 2));
    // What each head passes on to the query word: its slice through W^O (switched on or not),
    // as a length, and as the change in the two logits' difference it makes (the readout is
    // linear: removing the head alone takes exactly this off).
    const W_O = p["attn.out_proj.weight"], R = p["readout.weight"].values;
    const passes = [], push = [];
    for (let head = 0; head < H; head++) {
      const row = weights[head][last];
      let length = 0, moved = 0;
      for (let e = 0; e < E; e++) {
        let sum = 0;
        for (let d = head * D; d < (head + 1) * D; d++) {
          let value = 0;
          for (let j = 0; j <= last; j++) value += row[j] * v[j][d];
          sum += W_O.values[e * E + d] * value;
        }
        length += sum * sum;
        moved += (R[(2 * t + 1) * E + e] - R[2 * t * E + e]) * sum;
      }
      passes.push(Math.sqrt(length));
      push.push(moved);
    }
    return { weights, logits, passes, push };
  }

  // ---- The reader's sentence: its task, marks, answer and gloss -----------------------------

  // Punctuation, quotes and brackets (Latin and Chinese) separate words and are dropped; case
  // is ignored. What is left is the reader's words, as typed (never run as markup).
  const PUNCTUATION = /[.,!?;:"'“”‘’«»()[\]{}…—–。，、！？；：「」『』《》（）]+/g;

  function words(textValue) {
    return textValue.normalize("NFKC").toLowerCase().replace(PUNCTUATION, " ").trim().split(/\s+/).filter(Boolean);
  }

  function distance(a, b) {
    // edits from a to b: insert, delete, replace a letter, or swap two next to each other
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length][b.length];
  }

  function nearest(data, word) {
    // the vocabulary's closest word: at most one edit away (two for words of five letters or more)
    let best = null, least = word.length >= 5 ? 3 : 2;
    for (const candidate of Object.keys(data.words)) {
      const found = distance(word, candidate);
      if (found < least) [best, least] = [candidate, found];
    }
    return best;
  }

  // The sentence's task (from its last word), whether the model was trained on its kind (the
  // example's "trained" pattern, and a pronoun that fits exactly one person), the words the
  // answer depends on and the answer itself where English decides one (the "wider" pattern),
  // else why not. `open`: the last word may still be being typed.
  function analyse(data, m, tokens, open) {
    const known = (w) => Object.prototype.hasOwnProperty.call(data.words, w);
    const inProgress = (w) => open && Object.keys(data.words).some((v) => v.startsWith(w));
    if (!tokens.length) return { problem: "empty" };
    const last = tokens.length - 1;
    const unknown = tokens.filter((w, i) => !known(w) && !(i === last && inProgress(w)));
    if (unknown.length) return { problem: "unknown", unknown: [...new Set(unknown)] };
    if (tokens.length > m.positions) return { problem: "long" };
    if (!known(tokens[last])) return { problem: "typing" };
    const task = Object.keys(data.queries).find((t) => data.queries[t].includes(tokens[last]));
    if (!task) return { problem: "slot" };
    const query = last;
    const coded = tokens.map((w) => data.grammar.codes[w] || " ").join("");
    const roles = {};
    for (const which of ["trained", "wider"]) {
      const found = m.grammar[task][which].exec(coded);
      if (!found) continue;
      roles[which] = {};
      for (const [role, at] of Object.entries(found.indices.groups)) if (at) roles[which][role] = at[0];
    }
    const parsed = roles.trained || roles.wider;
    const marks = {};
    let answer = null, why = null, count = 0;
    if (task === "agreement") {
      if (parsed) {
        marks.subject = parsed.subject;
        if (parsed.distractor !== undefined) marks.distractor = parsed.distractor;
        answer = data.words[tokens[parsed.subject]].number;
      } else {
        why = tokens.some((w) => data.words[w].number) ? "none" : "noun";
      }
    } else {
      const people = tokens.map((w, i) => (data.words[w].refers ? i : -1)).filter((i) => i >= 0);
      count = people.length;
      const two = parsed ? [parsed.first, parsed.second] : people.slice(0, 2);
      const match = two.filter((i) => data.words[tokens[i]].refers === tokens[query]);
      if (parsed && match.length === 1) {
        marks.antecedent = match[0];
        marks.other = two.find((i) => i !== match[0]);
        answer = match[0] === two[0] ? "first" : "second";
      } else {
        const fits = match.length ? "both" : "neither"; // of two parsed people, the pronoun fits
        why = people.length < 2 ? "people" : people.length > 2 ? "three" : parsed ? fits : "none";
      }
      marks.people = count > 2 && !parsed ? [] : two; // of three people, none is "the first of two"
    }
    const inside = Boolean(roles.trained) && answer !== null;
    return { task, query, marks, answer, inside, why, count };
  }

  function gloss(data, tokens, sentence, prediction) {
    return tokens.map((w, i) => {
      const g = data.words[w].gloss;
      if (typeof g === "string") return g;
      const next = data.words[tokens[i + 1]] || {};
      if (w === "old") return g[next.refers ? "person" : next.animal ? "animal" : "thing"];
      if (w === "they") { // the antecedent's gender; without one, women only if all are
        const a = sentence.marks.antecedent;
        const people = a !== undefined ? [a] : sentence.marks.people || [];
        return g[people.length && people.every((p) => data.words[tokens[p]].women) ? "women" : "men"];
      }
      return g[sentence.answer || prediction] || ""; // the verb slot: the form the subject asks
    });
  }

  // ---- The page ------------------------------------------------------------------------------

  function sentences(parts) {
    // sentences side by side: a space between them, none after a Chinese full stop
    return parts.join(" ").replace(/([。！？）])\s+/g, "$1");
  }

  function toggle(set, item) {
    if (set.has(item)) set.delete(item);
    else set.add(item);
  }

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
    const chinese = root.dataset.gloss === "true";
    const ui = root.querySelector(":scope > .hx-ui");
    const m = model(data);
    const role = data.roles.agreement || { head: 0 };
    const state = {
      tokens: null, sentence: null, result: null, every: null,
      heads: new Set([role.head]), removed: new Set(), chosen: null, pointed: null,
    };
    const join = (items) => { // "a, b and c" in the page's language
      if (items.length <= 1) return items.join("");
      const head = items.slice(1, -1).reduce((h, next) => fill(text.list_next, { head: h, next }), items[0]);
      return fill(text.list_last, { head, last: items[items.length - 1] });
    };
    const list = (heads) => join(heads.map((h) => fill(text.head_ref, { n: h })));
    const value = (sentence, c, tokens) => { // "plural", or "the first person (boy)"
      const name = text["value_" + c];
      const at = sentence.task === "pronoun" ? sentence.marks.people[c === "first" ? 0 : 1] : undefined;
      return at === undefined ? name : fill(text.value_person, { value: name, word: tokens[at] });
    };

    // ---- Controls: the sentence field, its suggestions, examples and the word builder ------
    const field = el("div", { class: "hx-field-row" }, ui);
    el("label", { class: "hx-field", for: id + "-text" }, field).textContent = text.your_sentence;
    const input = el("input", {
      id: id + "-text", class: "hx-input", type: "text", autocomplete: "off", autocapitalize: "none",
      spellcheck: "false", enterkeyhint: "done", "aria-describedby": id + "-message",
    }, field);
    const suggest = el("div", { class: "hx-suggest", role: "group", "aria-label": text.suggestions }, ui);
    const message = el("p", { class: "hx-message", id: id + "-message", role: "status" }, ui);

    const row = el("div", { class: "hx-controls hx-sentence-row" }, ui);
    el("label", { class: "hx-field", for: id + "-sentence" }, row).textContent = text.examples;
    const select = el("select", { id: id + "-sentence", class: "hx-sentence" }, row);
    el("option", { value: "" }, select).textContent = text.own;
    const groups = {};
    data.examples.forEach((tokens, i) => {
      const task = analyse(data, m, tokens).task;
      if (!groups[task]) groups[task] = el("optgroup", { label: text["task_" + task] }, select);
      el("option", { value: String(i) }, groups[task]).textContent = tokens.join(" ");
    });

    const builder = el("details", { class: "hx-builder" }, ui);
    el("summary", {}, builder).textContent = text.builder;
    el("p", { class: "hx-grammar" }, builder).textContent = text.grammar;
    for (const group of data.groups) {
      const line = el("div", { class: "hx-words" }, builder);
      for (const word of group) {
        const button = el("button", { type: "button", class: "hx-word-button", "data-word": word }, line);
        button.textContent = word;
        const g = data.words[word].gloss;
        if (chinese && g) {
          el("span", { class: "hx-word-gloss" }, button).textContent = typeof g === "string" ? g : Object.values(g).join("/");
        }
        button.addEventListener("click", () => setText(words(input.value).concat(word).join(" ") + " "));
      }
    }
    const edits = el("div", { class: "hx-words" }, builder);
    const back = el("button", { type: "button", class: "hx-edit" }, edits);
    back.textContent = text.remove_last;
    back.addEventListener("click", () => setText(words(input.value).slice(0, -1).join(" ")));
    const clear = el("button", { type: "button", class: "hx-edit" }, edits);
    clear.textContent = text.clear;
    clear.addEventListener("click", () => setText(""));

    const note = el("p", { class: "hx-note", hidden: "" }, ui); // the sentence is not of the trained kind
    const answer = el("p", { class: "hx-answer", role: "status" }, ui);

    // ---- The heads: the model view (choose one to see it large) and the switches -----------
    const heads = el("div", { class: "hx-heads", role: "group", "aria-labelledby": id + "-heads" }, ui);
    el("p", { id: id + "-heads", class: "hx-heads-label" }, heads).textContent = text.heads;
    const cards = el("div", { class: "hx-cards" }, heads);
    const toggles = [];
    const switches = [];
    const maps = [];
    const bars = [];
    for (let h = 0; h < data.heads; h++) {
      const card = el("div", { class: "hx-card hx-h" + (h % COLOURS), "data-head": String(h) }, cards);
      const button = el("button", { type: "button", class: "hx-head hx-h" + (h % COLOURS), "data-head": String(h) }, card);
      const title = el("span", { class: "hx-head-title" }, button);
      el("span", { class: "hx-swatch", "aria-hidden": "true" }, title);
      title.appendChild(document.createTextNode(fill(text.head_n, { n: h })));
      maps.push(svg("svg", { class: "hx-map", "aria-hidden": "true", viewBox: "0 0 12 12" }, button));
      const passes = el("p", { class: "hx-passes", "data-head": String(h) }, card);
      el("span", { class: "hx-passes-text" }, passes);
      el("span", { class: "hx-bar", "aria-hidden": "true" }, el("span", { class: "hx-bar-track", "aria-hidden": "true" }, passes));
      bars.push(passes);
      button.addEventListener("click", () => {
        toggle(state.heads, h);
        draw();
      });
      toggles.push(button);
      const use = el("label", { class: "hx-use" }, card);
      const box = el("input", { type: "checkbox", class: "hx-switch", "data-head": String(h) }, use);
      box.checked = true;
      use.appendChild(document.createTextNode(fill(text.use_head, { n: h })));
      box.addEventListener("change", () => {
        toggle(state.removed, h);
        compute();
        draw();
      });
      switches.push(box);
    }

    const figure = el("div", { class: "hx-figure" }, ui);
    const summary = el("p", { class: "hx-summary", role: "status", "aria-live": "polite" }, ui);
    const legend = el("p", { class: "hx-legend" }, ui);
    el("span", {}, legend).textContent = sentences([text.legend, ""]);
    const marks = el("span", { class: "hx-marks" }, legend);

    // ---- The sentence: read, checked, run ---------------------------------------------------
    function setText(value, focus) {
      input.value = value;
      update();
      if (focus) input.focus(); // typing goes on; a tap on a word keeps the phone's keyboard down
    }

    function offer(tokens, typed, unknown) {
      // the words that complete the one being typed; else, for each word the model does not
      // know, the nearest one it does (a tap puts it in place)
      suggest.textContent = "";
      const partial = isOpen(typed) ? tokens[tokens.length - 1] : "";
      const found = partial
        ? Object.keys(data.words).filter((w) => w.startsWith(partial) && w !== partial).slice(0, SUGGESTIONS)
            .map((word) => [partial, word])
        : [];
      const completing = found.length > 0;
      if (!completing) {
        for (const word of unknown || []) {
          const near = nearest(data, word);
          if (near) found.push([word, near]);
        }
      }
      for (const [typedWord, word] of found) {
        const button = el("button", { type: "button", class: "hx-suggestion", "data-word": word }, suggest);
        button.textContent = word;
        button.addEventListener("click", () => {
          // the word being typed is completed; an unknown word is replaced wherever it occurs
          const done = completing
            ? tokens.slice(0, -1).concat(word)
            : tokens.map((w) => (w === typedWord ? word : w));
          setText(done.join(" ") + (completing ? " " : ""), true);
        });
        button.addEventListener("keydown", (event) => {
          const all = [...suggest.querySelectorAll("button")];
          const at = all.indexOf(button) + ({ ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key] || 0);
          if (event.key === "Escape") input.focus();
          else if (at !== all.indexOf(button) && all[at]) all[at].focus();
          else return;
          event.preventDefault();
        });
      }
    }

    function compute() {
      const ids = state.tokens.map((w) => m.index.get(w));
      state.result = run(m, ids, state.sentence.task, state.removed);
      state.every = state.removed.size ? run(m, ids, state.sentence.task, new Set()) : state.result;
    }

    function isOpen(typed) {
      return /\p{L}$/u.test(typed || ""); // a letter last: the word may not be finished
    }

    function update() {
      const tokens = words(input.value);
      const found = analyse(data, m, tokens, isOpen(input.value));
      offer(tokens, input.value, found.unknown);
      const nearWords = [...suggest.querySelectorAll(".hx-suggestion")].map((b) => b.dataset.word);
      const chosen = data.examples.findIndex((e) => e.join(" ") === tokens.join(" "));
      select.value = chosen >= 0 ? String(chosen) : "";
      if (found.problem) {
        const slot = (found.unknown || []).some((w) => ["is", "are"].includes(w));
        message.textContent = sentences([
          fill(text["problem_" + found.problem], {
            words: found.unknown ? join(found.unknown) : "", max: m.positions,
          }),
          slot ? text.hint_slot : "",
          found.problem === "unknown" && nearWords.length ? fill(text.nearest, { words: join(nearWords) }) : "",
          state.tokens && found.problem !== "typing" ? text.still : "",
        ]);
        answer.hidden = note.hidden = true; // a verdict on the last sentence would read as this one's
        message.dataset.problem = found.problem;
        return;
      }
      message.textContent = "";
      delete message.dataset.problem;
      answer.hidden = false;
      state.tokens = tokens;
      state.sentence = found;
      state.chosen = found.query;
      state.pointed = null;
      compute();
      build();
      draw();
    }

    input.addEventListener("input", update);
    input.addEventListener("keydown", (event) => {
      const first = suggest.querySelector("button");
      if (event.key === "ArrowDown" && first) {
        event.preventDefault();
        first.focus();
      }
    });
    select.addEventListener("change", () => {
      if (select.value !== "") setText(data.examples[Number(select.value)].join(" "));
    });

    // ---- The drawing: tokens once per sentence, lines at every change ------------------------
    let lines = null;
    let tokenNodes = [];
    let rowHeight = 0;

    function y(i) {
      return TOP + i * rowHeight + (chinese ? 14 : rowHeight / 2);
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

    function column(side, glosses, parent) {
      const { sentence, tokens } = state;
      const left = side === "query";
      const anchor = left ? "end" : "start";
      const x = left ? LEFT : RIGHT;
      const markAt = {};
      tasks[sentence.task].marks.forEach((mark, i) => {
        if (sentence.marks[mark] !== undefined) markAt[sentence.marks[mark]] = i === 0 ? "solid" : "dotted";
      });
      const heading = svg("text", { class: "hx-heading", x, y: 14, "text-anchor": anchor }, parent);
      heading.textContent = left ? text.queries : text.keys;
      return tokens.map((token, i) => {
        const group = svg("g", { class: "hx-tok", "data-index": String(i) }, parent);
        if (left) {
          svg("rect", { class: "hx-hit", x: 2, y: TOP + i * rowHeight + 1, width: LEFT + 4, height: rowHeight - 2, rx: 3 }, group);
        }
        const label = svg("text", { class: "hx-word", x, y: y(i), "text-anchor": anchor, "dominant-baseline": "middle" }, group);
        label.textContent = token;
        fit(label, left ? LEFT - 6 : WIDTH - RIGHT - 2);
        if (markAt[i]) underline(label, markAt[i], group);
        if (chinese && glosses[i]) {
          const small = svg("text", { class: "hx-gloss", x, y: y(i) + 19, "text-anchor": anchor, "dominant-baseline": "middle" }, group);
          small.textContent = glosses[i];
        }
        return group;
      });
    }

    function predicted(result) {
      const [a, b] = result.logits;
      const c = b > a ? 1 : 0;
      const probability = 1 / (1 + Math.exp(-Math.abs(a - b))); // softmax of two logits
      return { c: data.model.classes[state.sentence.task][c], p: probability.toFixed(3) };
    }

    function build() {
      const { sentence, tokens } = state;
      const glosses = gloss(data, tokens, sentence, predicted(state.every).c);
      rowHeight = chinese ? 40 : 26;
      const height = TOP + tokens.length * rowHeight + 4;
      figure.textContent = "";
      const drawing = svg("svg", {
        viewBox: `0 0 ${WIDTH} ${height}`, class: "hx-svg", role: "group",
        "aria-label": text.region, "data-sentence": tokens.join(" "),
      }, figure);
      lines = svg("g", { class: "hx-lines", "aria-hidden": "true" }, drawing);
      const keys = svg("g", { class: "hx-keys", "aria-hidden": "true" }, drawing);
      column("key", glosses, keys);
      const queries = svg("g", { class: "hx-queries", role: "group", "aria-label": text.queries }, drawing);
      tokenNodes = column("query", glosses, queries);
      tokenNodes.forEach((group, i) => {
        const name = fill(text.token_name, { token: tokens[i], n: i });
        group.setAttribute("role", "button");
        group.setAttribute("aria-label", chinese && glosses[i] ? fill(text.token_gloss, { name, gloss: glosses[i] }) : name);
        group.addEventListener("focus", () => choose(i));
        group.addEventListener("click", () => { choose(i); group.focus(); });
        group.addEventListener("pointerenter", () => { state.pointed = i; draw(); });
        group.addEventListener("pointerleave", () => { state.pointed = null; draw(); });
        group.addEventListener("keydown", (event) => keys_(event, i));
      });
      maps.forEach((_, h) => thumbnail(h)); // the weights do not change when a head is off
      const kinds = tasks[sentence.task].marks;
      const marked = kinds.some((kind) => sentence.marks[kind] !== undefined);
      marks.textContent = marked ? fill(text.marks, { solid: text["mark_" + kinds[0]], dotted: text["mark_" + kinds[1]] }) : "";
    }

    function keys_(event, i) {
      const last = tokenNodes.length - 1;
      const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: last }[event.key];
      if (to !== undefined) {
        event.preventDefault();
        tokenNodes[Math.max(0, Math.min(last, to))].focus();
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

    function label(k) {
      // a word that occurs more than once carries its occurrence: "the₁", "the₂"
      const tokens = state.tokens;
      if (tokens.filter((w) => w === tokens[k]).length < 2) return tokens[k];
      const nth = tokens.slice(0, k + 1).filter((w) => w === tokens[k]).length;
      return tokens[k] + String(nth).replace(/\d/g, (d) => "₀₁₂₃₄₅₆₇₈₉"[d]);
    }

    function describe(shown) {
      if (!shown.length) return text.summary_none;
      const q = state.pointed !== null ? state.pointed : state.chosen; // the row drawn
      if (q === null) return text.summary_all;
      return shown.map((h) => {
        const row = state.result.weights[h][q];
        const top = row.map((w, k) => [w, k]).filter(([w]) => w > 0)
          .sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 3)
          .map(([w, k]) => fill(text.summary_weight, { weight: w.toFixed(2), token: label(k) }));
        const weights = join(top);
        return fill(text.summary, { head: h, token: label(q), weights });
      }).reduce((said, next) => sentences([said, next]));
    }

    // The sentence's kind (a note where the model never saw it), the correct answer or why
    // there is none, the prediction marked right or wrong, and what switching heads off did.
    function verdict() {
      const { sentence, tokens } = state;
      const now = predicted(state.result);
      const mark = (c) => (sentence.answer ? (c === sentence.answer ? "right" : "wrong") : "none");
      const said = { right: text.right, wrong: text.wrong, none: "" };
      const why = { noun: text.answer_noun, none: text.answer_none, both: text.answer_both,
        neither: text.answer_neither };
      const parts = [sentence.answer
        ? fill(text.answer, { answer: value(sentence, sentence.answer, tokens) })
        : why[sentence.why] || fill(text.answer_people, { n: sentence.count })];
      const off = [...state.removed].sort((a, b) => a - b);
      if (!off.length) {
        parts.push(fill(text.predicts, { prediction: value(sentence, now.c, tokens), p: now.p }), said[mark(now.c)]);
      } else {
        const before = predicted(state.every);
        parts.push(fill(text.predicts_without, {
          heads: list(off), prediction: value(sentence, now.c, tokens), p: now.p,
          before: value(sentence, before.c, tokens), p_before: before.p,
        }), said[mark(now.c)]);
        const change = { right: "flipped_fixes", wrong: "flipped_breaks", none: "flipped" }[mark(now.c)];
        if (before.c !== now.c) parts.push(fill(text[change], { heads: list(off) }));
        // heads that pass on (nearly) nothing are all that is left: the readout sees the query
        // word and its position, whatever the other words
        const passes = state.every.passes, most = Math.max(...passes);
        const left = passes.filter((_, h) => !state.removed.has(h));
        if (!left.length || Math.max(...left) < NOTHING * most) {
          parts.push(fill(left.length ? text.nothing_left : text.nothing_on, {
            token: tokens[tokens.length - 1], left: left.length ? String(Number(Math.max(...left).toPrecision(2))) : "0",
            half: (1 / data.model.classes[sentence.task].length).toFixed(1),
          }));
        }
      }
      note.textContent = sentence.inside ? "" : text["outside_" + sentence.task];
      note.hidden = sentence.inside;
      answer.dataset.prediction = now.c;
      answer.dataset.probability = now.p;
      answer.dataset.verdict = mark(now.c);
      answer.dataset.inside = String(sentence.inside);
      return sentences(parts);
    }

    function thumbnail(h) {
      const map = maps[h];
      const n = state.tokens.length;
      map.textContent = "";
      map.setAttribute("viewBox", `0 0 ${n} ${n}`);
      svg("rect", { class: "hx-map-frame", x: 0, y: 0, width: n, height: n }, map);
      state.result.weights[h].forEach((row, q) => row.forEach((w, k) => {
        if (w >= MIN_WEIGHT) svg("rect", { class: "hx-cell", x: k, y: q, width: 1, height: 1, "fill-opacity": String(w) }, map);
      }));
    }

    function draw() {
      if (!state.tokens) return;
      const shown = [...state.heads].sort((a, b) => a - b);
      const row = state.pointed !== null ? state.pointed : state.chosen;
      lines.textContent = "";
      shown.forEach((h, order) => {
        const dy = (order - (shown.length - 1) / 2) * 3; // heads side by side, not on top
        state.result.weights[h].forEach((weights, q) => {
          if (row !== null && q !== row) return;
          weights.forEach((w, k) => {
            if (w < MIN_WEIGHT) return;
            svg("line", {
              class: "hx-line hx-h" + (h % COLOURS), x1: LEFT + 8, y1: y(q) + dy, x2: RIGHT - 6, y2: y(k) + dy,
              "stroke-opacity": String(w), "data-head": String(h),
              "data-query": String(q), "data-key": String(k), "data-weight": String(w),
            }, lines);
          });
        });
      });
      tokenNodes.forEach((group, i) => {
        group.setAttribute("aria-pressed", String(i === state.chosen));
        group.setAttribute("tabindex", i === (state.chosen === null ? 0 : state.chosen) ? "0" : "-1");
        group.classList.toggle("hx-row", i === row);
      });
      const passes = state.every.passes, most = Math.max(...passes, 1e-9);
      bars.forEach((bar, h) => {
        const said = fill(text.passes_on, { value: passes[h] < 0.01 ? String(Number(passes[h].toPrecision(2))) : passes[h].toFixed(2) });
        if (bar.firstChild.textContent !== said) bar.firstChild.textContent = said;
        bar.querySelector(".hx-bar").style.width = `${(100 * passes[h]) / most}%`;
        bar.dataset.passes = String(passes[h]);
      });
      toggles.forEach((button, h) => {
        button.setAttribute("aria-pressed", String(state.heads.has(h)));
        button.closest(".hx-card").classList.toggle("hx-off", state.removed.has(h));
      });
      const said = verdict();
      if (answer.textContent !== said) answer.textContent = said;
      const text_ = describe(shown);
      if (summary.textContent !== text_) summary.textContent = text_;
    }

    // ---- What to try: each suggestion on the page gets a button that loads it ---------------
    for (const item of root.querySelectorAll(".hx-try [data-sentence]")) {
      const button = el("button", { type: "button", class: "hx-try-button" }, item);
      button.textContent = text.try_it;
      button.addEventListener("click", () => {
        for (const box of switches) {
          if (!box.checked) box.click();
        }
        setText(item.dataset.sentence, false);
        answer.scrollIntoView({ block: "nearest" });
      });
    }

    ui.hidden = false; // before drawing: the tokens are measured
    input.value = (data.try[0] || { tokens: data.examples[0] }).tokens.join(" ");
    update();
    root.dataset.ready = "true";
  }

  function start() {
    for (const root of document.querySelectorAll(".head-explorer:not([data-ready])")) Explorer(root);
  }
  window.HeadExplorer = { model, run, analyse, gloss };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
