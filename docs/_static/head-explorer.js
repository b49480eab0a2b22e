/* The head explorer (docs/_ext/json_directives.py writes its container, data and text).

   The trained sentence model of the gallery example runs here, in plain JavaScript, on the
   sentence the reader writes from its vocabulary: token and position embeddings, Q, K and V,
   each head's causal softmax, the merge with any heads switched off (their slice of the
   concatenated heads zeroed before W^O, as the example's forward_without does), W^O, the
   residual and the readout of the query word. Each head's push: its output through W^O, read
   on the direction that separates the two answers (the readout's difference of the two
   logits, toward the answer data.toward names), which is exactly what switching it off takes
   away. window.HeadExplorer.run exposes the forward pass, which the site's tests compare with
   PyTorch's outputs.

   The drawing, in inline SVG: the tokens twice (left: queries, right: keys) with a line from
   each query to each key it attends to, one colour per head shown, more opaque for a larger
   attention weight; every line carries data-head, data-query, data-key and data-weight. Above
   it, a small map of every head's attention (the model view); choosing a head there shows it
   large. Switching a head never moves the switches: every text above them, and in their cards,
   keeps the height of its longest form for the sentence (all of them laid out in one grid cell,
   only the current one visible). One status region announces each change once, when the
   reader pauses. The reader's text is data only: it reaches the page as textContent, never as
   markup. Nothing is fetched: the page works from file:// too. */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = 8; // head colours in the style sheet (--hx-head-0 ... -7), reused in turn
  const LINE_MIN = 0.05; // lighter lines are not drawn (the legend says so) ...
  const CELL_MIN = 0.01; // ... nor lighter cells of the maps
  const FLOOR = 0.3; // a line's opacity: FLOOR + (1 - FLOOR) * weight, visible in both themes
  const WIDTH = 340; // the viewBox: the drawing scales to the column, up to the CSS max-width
  const LEFT = 128; // the query tokens end here (right-aligned) ...
  const RIGHT = 212; // ... and the key tokens start here
  const TOP = 26; // room for the column headings
  const SUGGESTIONS = 12; // words offered as the reader types
  const SMALL = 0.05; // a push below this moves a probability by less than 0.0125: it decides nothing
  const TINY = 0.001; // a push below this is said to be below it, either way
  const PAUSE = 500; // ms without a change before the status region speaks
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
    const tasks = Object.keys(data.model.classes);
    // +1 where the push is read as class 1 minus class 0, -1 the other way
    const sign = tasks.map((t) => (data.model.classes[t].indexOf(data.toward[t]) === 1 ? 1 : -1));
    return { p, E, H: data.heads, positions, index, grammar, tasks, sign };
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

  // Steps 1 to 4 of the forward pass on word indices `ids` (the query is the last word): every
  // head's weights[h][q][k], and the heads side by side at the query word, none switched off.
  function attend(m, ids) {
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
    const last = n - 1; // only the query word is read out
    const merged = new Float64Array(E); // (E,): the heads side by side at the query word
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
      }
      for (let d = head * D; d < (head + 1) * D; d++) {
        for (let j = 0; j <= last; j++) merged[d] += rows[last][j] * v[j][d];
      }
      weights.push(rows);
    }
    return { x: h[last], weights, merged };
  }

  // Steps 5 and 6 with the heads in `removed` switched off (their slice of the merged heads
  // zeroed before W^O), the residual and the readout: the task's two logits, and each head's
  // push on the answer (0 for a head switched off).
  function finish(m, attended, task, removed) {
    const { p, E, H } = m;
    const D = E / H;
    const merged = attended.merged.map((value, d) => (removed.has(Math.floor(d / D)) ? 0 : value));
    const W_O = p["attn.out_proj.weight"];
    const out = linear(W_O, p["attn.out_proj.bias"], merged, 0, E); // step 6
    const residual = attended.x.map((x, e) => x + out[e]);
    const t = m.tasks.indexOf(task);
    const logits = Array.from(linear(p["readout.weight"], p["readout.bias"], residual, 2 * t, 2));
    // Each head's push: its slice of the merged heads through W^O, on the readout's direction
    // from one answer to the other. The readout is linear, so switching the head off moves the
    // two logits' difference by exactly this much.
    const R = p["readout.weight"].values;
    const push = [];
    for (let head = 0; head < H; head++) {
      let moved = 0;
      for (let e = 0; e < E; e++) {
        let sum = 0;
        for (let d = head * D; d < (head + 1) * D; d++) sum += W_O.values[e * E + d] * merged[d];
        moved += (R[(2 * t + 1) * E + e] - R[2 * t * E + e]) * sum;
      }
      push.push(m.sign[t] * moved);
    }
    return { weights: attended.weights, logits, push };
  }

  // The whole forward pass for `task`, with the heads in `removed` switched off.
  function run(m, ids, task, removed) {
    return finish(m, attend(m, ids), task, removed);
  }

  // ---- The reader's sentence: its task, marks, answer and gloss -----------------------------

  // Punctuation, quotes and brackets (Latin and Chinese) separate words and are dropped; case
  // is ignored. What is left is the reader's words, as typed (never run as markup).
  const PUNCTUATION = /[.,!?;:"'“”‘’«»()[\]{}…—–。，、！？；：「」『』《》（）]+/g;

  function words(textValue) {
    // "is / are" is the one word "is/are"
    return textValue.normalize("NFKC").toLowerCase().replace(PUNCTUATION, " ").replace(/\s*\/\s*/g, "/")
      .trim().split(/\s+/).filter(Boolean);
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
    // every word of the vocabulary at the least distance: at most one edit away (two for words
    // of five letters or more), in the vocabulary's order
    let best = [], least = word.length >= 5 ? 2 : 1;
    for (const candidate of Object.keys(data.words)) {
      const found = distance(word, candidate);
      if (found < least) [best, least] = [[], found];
      if (found === least) best.push(candidate);
    }
    return best;
  }

  // Whom the pronoun can mean, by number and gender: each person it fits, each animal of its
  // number (a dog can be "he" or "she", dogs "they"), a pronoun before it that is the same word
  // ("he met the queen because he"), and for "they", the two named one by one (people, animals
  // or pronouns), together; of three or more, English does not say which (`single`: those).
  // `named`: every person, animal and pronoun before the last word, in order.
  function referents(data, tokens, pronoun) {
    const pronouns = data.queries.pronoun;
    const before = tokens.slice(0, -1);
    const fits = (w) => { // the pronouns a word can be meant by
      const { refers, animal, number } = data.words[w];
      if (pronouns.includes(w)) return [w];
      if (refers) return [refers];
      return number === "plural" ? ["they"] : animal ? ["he", "she"] : []; // "the lamps": they
    };
    // a pronoun that only one word before it can mean is that word, not one more named
    // ("the girl called the boy when he saw the man so he": boy or man)
    const earlier = (i) => before.slice(0, i).filter((w) => fits(w).includes(before[i]) && !pronouns.includes(w));
    const named = before.map((w, i) => i)
      .filter((i) => fits(before[i]).length && !(pronouns.includes(before[i]) && earlier(i).length === 1));
    const found = named.filter((i) => fits(before[i]).includes(pronoun));
    const single = named.filter((i) => !fits(before[i]).includes("they"));
    const together = pronoun === "they" && single.length === 2 && !found.length;
    return { named, single, found: together ? [...found, "together"] : found };
  }

  // Two neighbouring words no English sentence puts together ("the the", "keys keys", "near
  // is/are", "met he", "so is/are"), by the example's grammar: what may follow a word of each
  // category. On such a string no answer is right or wrong.
  function garbled(data, tokens) {
    const { categories, follow } = data;
    const kinds = (w) => Object.keys(categories).filter((c) => categories[c].includes(w));
    for (let i = 0; i + 1 < tokens.length; i++) {
      const after = kinds(tokens[i + 1]);
      const may = kinds(tokens[i]).filter((c) => follow[c]); // "saw": a verb, or saw (that) he...
      const wrong = may.length > 0 && !may.some((c) => follow[c].some((k) => after.includes(k)));
      if (tokens[i] === tokens[i + 1] || wrong) return tokens.slice(i, i + 2);
    }
    return null;
  }

  // The sentence's task (from its last word), whether the model was trained on its kind (the
  // example's "trained" pattern and an answer), the words the answer depends on and the answer
  // itself where English decides one (the "wider" pattern), else why not. `open`: the last word
  // may still be being typed.
  function analyse(data, m, tokens, open) {
    const known = (w) => Object.prototype.hasOwnProperty.call(data.words, w);
    const longer = (w) => Object.keys(data.words).some((v) => v !== w && v.startsWith(w)); // "he": "helped"
    const inProgress = (w) => open && longer(w);
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
    let answer = null, why = null, found = [], group = [], also = [], number = null;
    if (task === "agreement") {
      if (parsed) {
        marks.subject = parsed.subject;
        const distractor = [parsed.clause, parsed.distractor, parsed.fronted].find((i) => i !== undefined);
        if (distractor !== undefined) marks.distractor = distractor; // the noun nearest the verb
        answer = data.words[tokens[parsed.subject]].number;
      } else { // of no kind the grammar reads: no answer, the nouns' number said where it is one
        const numbers = new Set(tokens.slice(0, query).map((w) => data.words[w].number).filter(Boolean));
        if (numbers.size === 1) [number] = numbers; // "the book the book is/are"
        why = numbers.size ? "unread" : "noun";
      }
    } else {
      const who = referents(data, tokens, tokens[query]);
      found = who.found;
      // the two the model chooses between: the pattern's; else the first two nouns named; or the
      // only two named at all, where the pronoun means one ("the dogs helped the king so they")
      const nouns = tokens.slice(0, query).map((w, i) => i).filter((i) => data.words[tokens[i]].number);
      let two = parsed ? [parsed.first, parsed.second] : nouns.length >= 2 ? nouns.slice(0, 2) : [];
      // the same word named again is the one named before ("... because she helped the boy so
      // he"), unless it is both of the two ("the boy met the boy because he": two boys)
      const pair = two.length === 2 ? two : who.named.length === 2 ? who.named : []; // "the dog saw the dog"
      if (!(pair.length === 2 && tokens[pair[0]] === tokens[pair[1]])) {
        found = found.filter((i, n) => i === "together" || !found.slice(0, n).some((j) => tokens[j] === tokens[i]));
      }
      const one = found.length === 1 && found[0] !== "together";
      if ((one && !two.includes(found[0]) || !two.length) && who.named.length === 2) two = who.named;
      marks.people = two;
      const at = two.indexOf(found[0]);
      const plural = found.filter((i) => i !== "together"); // for "they": each plural named
      const open = tokens[query] === "they" && (plural.length >= 2 || (plural.length > 0 && who.single.length >= 2));
      if (open) {
        why = "they_open"; // "the kings met the queens because they": either, or all of them
      } else if (one && at >= 0) {
        [marks.antecedent, marks.other, answer] = [found[0], two[1 - at], ["first", "second"][at]];
      } else if (found.length === 1 && found[0] === "together") {
        why = "together";
      } else if (one) { // English decides, but not between the two the model knows
        [why, marks.antecedent] = [parsed ? "phrase" : "means", found[0]];
      } else if (found.length > 1) {
        why = "several"; // "the dog ... the girl ... she"
      } else if (tokens[query] === "they" && who.single.length > 2) {
        why = "groups"; // "the king near the queen met the girl because they": any two, or all
      } else {
        why = parsed || who.named.length ? "neither" : "nobody";
      }
      if (why === "together" || why === "groups") group = who.single; // "they": these, together
      if (why === "they_open") group = [...new Set([...found, ...who.single])].sort((a, b) => a - b);
      // "the girl met the boys so they": the boys, by number; the girl and the boys together
      // is a reading too, said beside the answer
      const { refers, animal } = answer ? data.words[tokens[found[0]]] : {};
      const thing = answer && !refers && !animal && !data.queries.pronoun.includes(tokens[found[0]]);
      if (answer && !thing && tokens[query] === "they" && who.single.length) also = [...who.single, found[0]].sort((a, b) => a - b);
    }
    // still being typed, and nothing named for the last word to depend on ("the she", on the
    // way to "the sheep"): a fragment, not yet a sentence to give a verdict on
    if (open && (why === "noun" || why === "nobody")) return { problem: "fragment_" + task, word: tokens[query] };
    // still being typed, of no kind the grammar reads, and its last word the start of a longer
    // one ("the king he", on the way to "helped"): the reader is typing that word, no verdict yet
    const joined = ["because", "so", "when"].includes(tokens[last - 1]); // "... because he": whole
    if (open && !parsed && !joined && longer(tokens[last])) return { problem: "typing", completes: tokens[last] };
    const pair = why === "noun" ? null : garbled(data, tokens); // "the keys keys": no sentence, no answer
    const reads = Boolean(parsed) || (task === "pronoun" && m.grammar.pronoun.reads.test(coded));
    if (pair || (!reads && why !== "noun")) [answer, why, found, group, also] = [null, "unread", [], [], []];
    const inside = Boolean(roles.trained) && answer !== null;
    if (why === "unread") for (const kind of Object.keys(marks)) delete marks[kind];
    return { task, query, marks, answer, inside, why, found, group, also, number, pair };
  }

  function gloss(data, tokens, sentence) {
    return tokens.map((w, i) => {
      const g = data.words[w].gloss;
      if (typeof g === "string") return g;
      const next = data.words[tokens[i + 1]] || {};
      if (w === "old") return g[next.refers || next.animal ? "living" : "thing"];
      if (w === "they") { // the antecedent's gender (or animals); without one, women only if all are
        const a = sentence.marks.antecedent;
        if (a !== undefined && data.words[tokens[a]].animal) return g.animals;
        const people = a !== undefined ? [a] : sentence.group.length ? sentence.group : sentence.marks.people || [];
        return g[people.length && people.every((p) => data.words[tokens[p]].women) ? "women" : "men"];
      }
      // the verb slot: the form the subject asks, or, where English decides none, the verb alone
      return sentence.answer ? g[sentence.answer] : (g.singular || "").replace(/（.*）/, "");
    });
  }

  // ---- The page ------------------------------------------------------------------------------

  function sentences(parts) {
    // sentences side by side: a space between them, none after a Chinese full stop
    return parts.filter(Boolean).join(" ").replace(/([。！？）])\s+/g, "$1");
  }

  function toggle(set, item) {
    if (set.has(item)) set.delete(item);
    else set.add(item);
  }

  function fill(template, values) { // no space between two Chinese characters ("头 2 和头 3"), or brackets
    return template.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all))
      .replace(/([\p{Script=Han}」）]) +(?=[\p{Script=Han}「（])/gu, "$1");
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

  function size(x) {
    // "4.12", "0.004": two decimals, three below 0.01; below TINY, TINY (an upper bound)
    return x >= 0.01 ? x.toFixed(2) : x >= TINY ? x.toFixed(3) : String(TINY);
  }

  function signed(x) {
    return (x < 0 ? "−" : "+") + size(Math.abs(x)); // "+4.12", "−0.31", "+0.004"
  }

  // A box that keeps the height of the longest of its `forms` ({text, verdict, aside}): all laid
  // out in one grid cell, only the one shown visible to eyes and to assistive technology.
  // Returns the function that shows form i.
  function steady(box, forms) {
    const nodes = new Map();
    box.textContent = "";
    const at = forms.map((form) => {
      const found = (form.verdict || "none") + "|" + form.text + "|" + (form.aside || "");
      if (!nodes.has(found)) {
        const node = el("span", { class: "hx-form", "data-verdict": form.verdict || "none" }, box);
        const whole = sentences([form.text, form.aside]); // an aside: the same box, not bold
        node.textContent = whole.slice(0, whole.length - (form.aside || "").length);
        if (form.aside) el("span", { class: "hx-aside" }, node).textContent = form.aside;
        nodes.set(found, node);
      }
      return nodes.get(found);
    });
    return (i) => {
      for (const node of nodes.values()) {
        node.classList.toggle("hx-sizer", node !== at[i]);
        if (node === at[i]) node.removeAttribute("aria-hidden");
        else node.setAttribute("aria-hidden", "true");
      }
    };
  }

  function Explorer(root) {
    const id = "hx" + count++;
    const { data, text, tasks } = self.mhaHeadExplorer; // head-explorer-data.js, loaded before
    const chinese = root.dataset.gloss === "true";
    const ui = root.querySelector(":scope > .hx-ui");
    const m = model(data);
    const role = data.roles.agreement || { head: 0 };
    const known = (w) => Object.prototype.hasOwnProperty.call(data.words, w);
    const state = {
      tokens: null, sentence: null, result: null, every: null, runs: null, toggled: null,
      heads: new Set([role.head]), removed: new Set(), chosen: null, pointed: null,
    };
    const join = (items, last = text.list_last) => { // "a, b and c" (or "a, b or c") in the page's language
      if (items.length <= 1) return items.join("");
      const head = items.slice(1, -1).reduce((h, next) => fill(text.list_next, { head: h, next }), items[0]);
      return fill(last, { head, last: items[items.length - 1] });
    };
    const list = (heads) => join(heads.map((h) => fill(text.head_ref, { n: h })));
    const value = (sentence, c, tokens) => { // "plural", or "the first of the two people (boy)"
      const name = text["value_" + c];
      const at = sentence.task === "pronoun" ? (sentence.marks.people || [])[c === "first" ? 0 : 1] : undefined;
      return at === undefined ? name : fill(text.value_person, { value: name, word: tokens[at] });
    };
    const side = (c) => { // the same, short: "plural", "the first person (boy)"
      const { sentence, tokens } = state;
      const at = sentence.task === "pronoun" ? (sentence.marks.people || [])[c === "first" ? 0 : 1] : undefined;
      const name = (at !== undefined && text["side_" + c]) || text["value_" + c]; // who, or which
      return at === undefined ? name : fill(text.value_person, { value: name, word: tokens[at] });
    };

    // ---- One status region: it speaks once the reader pauses, and only what changed -------
    const status = el("p", { class: "hx-status", role: "status" }, root);
    let pending = null;
    const shown = (box) => box.querySelector(".hx-form:not(.hx-sizer)").textContent; // of a steady box
    function announce(said) {
      if (!root.dataset.ready) return; // nothing is said as the page opens
      clearTimeout(pending);
      pending = setTimeout(() => {
        if (status.textContent !== said) status.textContent = said;
      }, PAUSE);
    }

    // ---- Controls: the sentence field, its suggestions, examples and the word builder ------
    const field = el("div", { class: "hx-field-row" }, ui);
    el("label", { class: "hx-field", for: id + "-text" }, field).textContent = text.your_sentence;
    const input = el("input", {
      id: id + "-text", class: "hx-input", type: "text", autocomplete: "off", autocapitalize: "none",
      spellcheck: "false", enterkeyhint: "done", "aria-describedby": id + "-message",
    }, field);
    const suggest = el("div", { class: "hx-suggest", role: "group", "aria-label": text.suggestions }, ui);
    const problem = el("div", { class: "hx-problem" }, ui);
    const message = el("p", { class: "hx-message", id: id + "-message" }, problem);
    const showWords = el("button", { type: "button", class: "hx-show-words", hidden: "" }, problem);
    showWords.textContent = text.show_words;

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
    const opener = el("summary", {}, builder);
    opener.textContent = text.builder;
    el("p", { class: "hx-grammar" }, builder).textContent = text.grammar;
    for (const group of data.groups) {
      const line = el("div", { class: "hx-words" }, builder);
      for (const word of group) {
        const button = el("button", { type: "button", class: "hx-word-button", "data-word": word }, line);
        button.textContent = word;
        const g = data.words[word].gloss;
        if (chinese && g) {
          const said = typeof g === "string" ? g : [...new Set(Object.values(g))].join("/");
          el("span", { class: "hx-word-gloss" }, button).textContent = said;
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
    showWords.addEventListener("click", () => {
      builder.open = true;
      opener.focus();
      builder.scrollIntoView({ block: "nearest" });
    });

    const note = el("p", { class: "hx-note", hidden: "" }, ui); // the sentence is not of the trained kind
    const answer = el("div", { class: "hx-answer hx-steady" }, ui);

    // ---- The heads: the model view (choose one to see it large) and the switches -----------
    const heads = el("div", { class: "hx-heads", role: "group", "aria-labelledby": id + "-heads" }, ui);
    el("p", { id: id + "-heads", class: "hx-heads-label" }, heads).textContent = text.heads;
    const axis = el("p", { class: "hx-axis" }, heads);
    const cards = el("div", { class: "hx-cards" }, heads);
    const toggles = [];
    const switches = [];
    const maps = [];
    const pushes = [];
    const changes = [];
    for (let h = 0; h < data.heads; h++) {
      const card = el("div", { class: "hx-card hx-h" + (h % COLOURS), "data-head": String(h) }, cards);
      const button = el("button", {
        type: "button", class: "hx-head hx-h" + (h % COLOURS), "data-head": String(h),
        "aria-label": fill(text.show_head, { n: h }),
      }, card);
      const title = el("span", { class: "hx-head-title" }, button);
      el("span", { class: "hx-swatch", "aria-hidden": "true" }, title);
      title.appendChild(document.createTextNode(fill(text.head_n, { n: h })));
      maps.push(svg("svg", { class: "hx-map", "aria-hidden": "true", viewBox: "0 0 12 12" }, button));
      const push = el("p", { class: "hx-push", "data-head": String(h) }, card);
      el("span", { class: "hx-push-text hx-steady" }, push);
      el("span", { class: "hx-bar", "aria-hidden": "true" }, el("span", { class: "hx-bar-track", "aria-hidden": "true" }, push));
      pushes.push(push);
      button.addEventListener("click", () => {
        toggle(state.heads, h);
        draw();
        announce(describe([...state.heads].sort((a, b) => a - b)));
      });
      toggles.push(button);
      const use = el("label", { class: "hx-use" }, card);
      const box = el("input", { type: "checkbox", class: "hx-switch", "data-head": String(h) }, use);
      box.checked = true;
      use.appendChild(document.createTextNode(fill(text.use_head, { n: h })));
      box.addEventListener("change", () => {
        toggle(state.removed, h);
        state.toggled = h;
        state.result = state.runs[key(state.removed)];
        draw();
        changes[h].scrollIntoView({ block: "nearest", behavior: "instant" }); // the change, on screen
        announce(sentences([shown(changes[h]), shown(answer)]));
      });
      switches.push(box);
      changes.push(el("p", { class: "hx-change hx-steady", "data-head": String(h) }, card));
    }

    const figure = el("div", { class: "hx-figure" }, ui);
    const summary = el("p", { class: "hx-summary" }, ui);
    const legend = el("p", { class: "hx-legend" }, ui);
    el("span", {}, legend).textContent = sentences([fill(text.legend, { min: LINE_MIN }), "-"]).slice(0, -1);
    const marks = el("span", { class: "hx-marks" }, legend);

    // ---- The sentence: read, checked, run ---------------------------------------------------
    function setText(value, focus) {
      fresh = false;
      input.value = value;
      update();
      if (focus) input.focus(); // typing goes on; a tap on a word keeps the phone's keyboard down
    }

    function offer(tokens, typed, unknown, completes) {
      // for each word the model does not know, every nearest word it does (a tap puts it in
      // place of that word); and the words that complete the last one, while it is being typed
      // and is not a word yet
      suggest.textContent = "";
      const partial = isOpen(typed) && (!known(tokens[tokens.length - 1]) || completes) ? tokens[tokens.length - 1] : "";
      const offers = [];
      for (const word of unknown || []) {
        const near = nearest(data, word);
        if (near.length) offers.push({ replaces: word, words: near, label: fill(text.instead_of, { word }) });
      }
      const completions = partial
        ? Object.keys(data.words).filter((w) => w.startsWith(partial)).slice(0, SUGGESTIONS)
        : [];
      if (completions.length) offers.push({ completes: partial, words: completions, label: fill(text.finish, { word: partial }) });
      for (const offer of offers) {
        const group = el("div", { class: "hx-offer", role: "group", "aria-label": offer.label }, suggest);
        el("span", { class: "hx-offer-label", "aria-hidden": "true" }, group).textContent = offer.label;
        for (const word of offer.words) {
          const button = el("button", { type: "button", class: "hx-suggestion", "data-word": word }, group);
          if (offer.replaces) button.dataset.replaces = offer.replaces;
          button.textContent = word;
          button.addEventListener("click", () => {
            // the word being typed is completed; an unknown word is replaced wherever it occurs
            const done = offer.completes !== undefined
              ? tokens.slice(0, -1).concat(word)
              : tokens.map((w) => (w === offer.replaces ? word : w));
            setText(done.join(" ") + (offer.completes !== undefined ? " " : ""), true);
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
      return offers.filter((o) => o.replaces);
    }

    const key = (removed) => [...removed].sort((a, b) => a - b).join(",");

    function compute() {
      // every combination of heads switched off, once per sentence: the texts above the
      // switches keep the height of their longest form
      const attended = attend(m, state.tokens.map((w) => m.index.get(w)));
      state.runs = {};
      for (let mask = 0; mask < 2 ** m.H; mask++) {
        const removed = new Set([...Array(m.H).keys()].filter((h) => mask & (1 << h)));
        state.runs[key(removed)] = finish(m, attended, state.sentence.task, removed);
      }
      state.every = state.runs[""];
      state.result = state.runs[key(state.removed)];
    }

    function isOpen(typed) {
      return /[\p{L}/]$/u.test(typed || ""); // a letter (or is/'s slash) last: the word may not be finished
    }

    function update() {
      const tokens = words(input.value);
      const found = analyse(data, m, tokens, isOpen(input.value));
      const replacing = offer(tokens, input.value, found.unknown, found.completes);
      const chosen = data.examples.findIndex((e) => e.join(" ") === tokens.join(" "));
      select.value = chosen >= 0 ? String(chosen) : "";
      if (found.problem) {
        const slot = (found.unknown || []).some((w) => ["is", "are"].includes(w));
        const lost = (found.unknown || []).filter((w) => !replacing.some((o) => o.replaces === w));
        const foreign = lost.length > 0 && !slot; // no English word near: perhaps not English at all
        message.textContent = sentences([
          fill(text["problem_" + found.problem], {
            words: found.unknown ? join(found.unknown) : "", max: m.positions, word: found.word,
          }),
          slot ? text.hint_slot : "",
          ...replacing.map((o) => fill(text.nearest, { word: o.replaces, words: join(o.words) })),
          foreign ? text.english : "",
          state.tokens ? fill(text.still, { sentence: state.tokens.join(" ") }) : "",
        ]);
        showWords.hidden = !foreign;
        answer.hidden = note.hidden = true; // a verdict on the last sentence would read as this one's
        stale(true); // and so would its drawing, marks and pushes: greyed, out of reach
        message.dataset.problem = found.problem;
        announce(message.textContent);
        return;
      }
      message.textContent = "";
      showWords.hidden = true;
      delete message.dataset.problem;
      answer.hidden = false;
      stale(false);
      state.tokens = tokens;
      state.sentence = found;
      state.chosen = found.query;
      state.pointed = null;
      state.toggled = null;
      compute();
      build();
      draw();
      announce(shown(answer));
    }

    // What still shows the last sentence that worked, while the field holds none: greyed, and
    // out of reach of pointer, keyboard and screen reader (a switch there would answer for it).
    function stale(old) {
      ui.classList.toggle("hx-stale", old);
      for (const part of [heads, figure, summary, legend]) part.inert = old;
    }

    // The example the page opens on is selected as the field is first focused: typing replaces it.
    let fresh = true;
    input.addEventListener("focus", () => {
      if (fresh) input.select();
    });
    input.addEventListener("input", () => {
      fresh = false;
      update();
    });
    input.addEventListener("keydown", (event) => {
      const first = suggest.querySelector("button");
      if (event.key === "ArrowDown" && first) {
        event.preventDefault();
        first.focus();
      }
    });
    select.addEventListener("change", () => { // "(your own sentence)": an empty field, focused
      setText(select.value === "" ? "" : data.examples[Number(select.value)].join(" "), select.value === "");
    });

    // ---- The drawing: tokens once per sentence, lines at every change ------------------------
    let lines = null;
    let tokenNodes = [];
    let rowHeight = 0;
    let showAnswer = null, showPush = [], showChange = [];

    function y(i) {
      return TOP + i * rowHeight + (chinese ? 14 : rowHeight / 2);
    }

    const sizes = new Map(); // each word's length and how far below its line its box reaches
    if (document.fonts) document.fonts.addEventListener("loadingdone", () => sizes.clear());

    function settle(labels) {
      // a token longer than its column is squeezed into it, never cut, and the marked ones
      // underlined; each word is measured once (one layout for those new to the drawing)
      labels.filter(({ label }) => !sizes.has(label.textContent))
        .map(({ label }) => [label, label.getComputedTextLength(), label.getBBox()])
        .forEach(([label, length, box]) => {
          if (length > 0) sizes.set(label.textContent, { length, below: box.y + box.height - label.y.baseVal[0].value });
        });
      labels.forEach(({ label, room, mark, group, anchor }) => {
        const { length, below } = sizes.get(label.textContent) || { length: 0, below: 0 };
        const width = Math.min(length, room);
        if (length > room) {
          label.setAttribute("textLength", String(room));
          label.setAttribute("lengthAdjust", "spacingAndGlyphs");
        }
        if (!mark || !width) return;
        const x = label.x.baseVal[0].value, y1 = label.y.baseVal[0].value + below + 1;
        const x1 = anchor === "end" ? x - width : x;
        svg("line", { class: "hx-mark hx-mark-" + mark, x1, x2: x1 + width, y1, y2: y1 }, group);
      });
    }

    function column(side, glosses, parent, labels) {
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
        labels.push({ label, room: left ? LEFT - 6 : WIDTH - RIGHT - 2, mark: markAt[i], group, anchor });
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
      const glosses = gloss(data, tokens, sentence);
      rowHeight = chinese ? 40 : 26;
      const height = TOP + tokens.length * rowHeight + 4;
      figure.textContent = "";
      const drawing = svg("svg", {
        viewBox: `0 0 ${WIDTH} ${height}`, class: "hx-svg", role: "group",
        "aria-label": text.region, "data-sentence": tokens.join(" "),
      }, figure);
      lines = svg("g", { class: "hx-lines", "aria-hidden": "true" }, drawing);
      const keys = svg("g", { class: "hx-keys", "aria-hidden": "true" }, drawing);
      const labels = [];
      column("key", glosses, keys, labels);
      const queries = svg("g", { class: "hx-queries", role: "group", "aria-label": text.queries }, drawing);
      tokenNodes = column("query", glosses, queries, labels);
      settle(labels);
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
      const kinds = tasks[sentence.task].marks; // the legend names the marks drawn only
      marks.textContent = sentences(kinds.filter((kind) => sentence.marks[kind] !== undefined)
        .map((kind) => fill(kinds.indexOf(kind) ? text.mark_dotted : text.mark_solid, { mark: text["mark_" + kind] })));
      // every text above the switches and in their cards, in each of its forms
      const toward = data.toward[sentence.task];
      const away = data.model.classes[sentence.task].find((c) => c !== toward);
      axis.textContent = fill(text.push_axis, { plus: side(toward), minus: side(away) });
      const masks = Object.keys(state.runs);
      showAnswer = steady(answer, masks.map(verdict));
      showPush = pushes.map((node, h) => {
        const on = state.every.push[h];
        const forms = [
          { text: Math.abs(on) < TINY ? fill(text.push_none, { value: TINY })
            : fill(text.push, { value: signed(on), side: side(on < 0 ? away : toward) }) },
          { text: fill(text.push_off, { value: 0 }) },
        ];
        return steady(node.firstChild, forms);
      });
      showChange = changes.map((node, h) => {
        const show = steady(node, [{ text: "" }, ...masks.map((k) => change(h, k))]);
        return (k) => show(k === null ? 0 : 1 + masks.indexOf(k));
      });
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
      announce(summary.textContent);
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

    function mark(c) {
      const answer = state.sentence.answer;
      return answer ? (c === answer ? "right" : "wrong") : "none";
    }

    // Why the sentence decides no answer, in words.
    function undecided() {
      const { sentence, tokens } = state;
      const named = (items) => join(items.map((i) => tokens[i]));
      const together = fill(text.together, { people: named(referents(data, tokens, "they").single) });
      const found = sentence.found.map((i) => (i === "together" ? together : tokens[i]));
      const said = {
        noun: text.answer_noun, none: text.answer_none, neither: text.answer_neither,
        nobody: text.answer_nobody, several: fill(text.answer_several, { words: join(found, text.list_or) }),
        together: fill(text.answer_together, { people: named(sentence.group) }),
        groups: fill(text.answer_groups, { people: named(sentence.group) }),
        they_open: fill(text.answer_they_open, {
          words: join(found, text.list_or),
          people: sentence.group.length > 2 ? fill(text.any_of, { people: named(sentence.group) }) : named(sentence.group),
        }),
        phrase: fill(text.answer_phrase, { pronoun: tokens[sentence.query], word: found[0] }),
        means: fill(text.answer_means, { pronoun: tokens[sentence.query], word: found[0] }),
      }[sentence.why];
      if (sentence.why === "unread") {
        const number = sentence.number ? fill(text.answer_unread_number, { number: text["value_" + sentence.number] }) : "";
        return sentences([sentence.pair ? fill(text.answer_unread_pair, { words: sentence.pair.join(" ") }) : text.answer_unread, number]);
      }
      return said;
    }

    // With the heads of `k` off, whether those still on decide nothing: each push left below
    // SMALL, the readout sees the query word and its position (said only with a head off: with
    // every head on, small pushes are this sentence's own). Part of the verdict, whose box keeps
    // the height of its longest form: no switch moves what is below it.
    function nothing(k) {
      const off = k ? k.split(",").map(Number) : [];
      const left = state.runs[k].push.filter((_, h) => !off.includes(h)).map(Math.abs);
      if (!off.length || (left.length > 0 && Math.max(...left) >= SMALL)) return "";
      return fill(left.length ? text.nothing_left : text.nothing_on, {
        token: state.tokens[state.tokens.length - 1], left: size(Math.max(...left, 0)),
        half: (1 / data.model.classes[state.sentence.task].length).toFixed(1),
      });
    }

    // The verdict with the heads of `k` switched off: the correct answer or why there is none,
    // the prediction marked right or wrong, and what switching heads off did.
    function verdict(k) {
      const { sentence, tokens } = state;
      const now = predicted(state.runs[k]);
      const said = { right: text.right, wrong: text.wrong, none: "" };
      const parts = [sentence.answer ? fill(text.answer, { answer: value(sentence, sentence.answer, tokens) }) : undecided()];
      if (sentence.also.length) {
        const people = fill(text.together, { people: join(sentence.also.map((i) => tokens[i])) });
        parts.push(fill(text.also_together, { people, word: tokens[sentence.marks.antecedent] }));
      }
      const off = k ? k.split(",").map(Number) : [];
      if (!off.length) {
        parts.push(fill(text.predicts, { prediction: side(now.c), p: now.p }), said[mark(now.c)]);
      } else {
        const before = predicted(state.every);
        parts.push(fill(text.predicts_without, {
          heads: list(off), prediction: side(now.c), p: now.p,
          before: side(before.c), p_before: before.p,
        }), said[mark(now.c)]);
        const change = { right: "flipped_fixes", wrong: "flipped_breaks", none: "flipped" }[mark(now.c)];
        const pushed = off.reduce((sum, h) => sum + state.every.push[h], 0);
        const toward = data.toward[sentence.task];
        const away = data.model.classes[sentence.task].find((c) => c !== toward);
        const kept = Math.abs(pushed) < TINY ? fill(text.unchanged_none, { heads: list(off), value: TINY })
          : fill(text.unchanged, { heads: list(off), value: signed(pushed), side: side(pushed < 0 ? away : toward) });
        parts.push(before.c !== now.c ? fill(text[change], { heads: list(off) }) : kept);
      }
      return { text: sentences(parts), verdict: mark(now.c), aside: nothing(k) };
    }

    // What switching head `h` did, to reach the heads off in `k`: next to its switch.
    function change(h, k) {
      const off = new Set(k ? k.split(",").map(Number) : []);
      const now = predicted(state.runs[k]);
      toggle(off, h);
      const before = predicted(state.runs[key(off)]);
      const template = before.c === now.c ? text.change_same : text.change_flipped;
      return { text: fill(template, { prediction: side(now.c), p: now.p, p_before: before.p }), verdict: mark(now.c) };
    }

    function thumbnail(h) {
      const map = maps[h];
      const n = state.tokens.length;
      map.textContent = "";
      map.setAttribute("viewBox", `0 0 ${n} ${n}`);
      svg("rect", { class: "hx-map-frame", x: 0, y: 0, width: n, height: n }, map);
      state.result.weights[h].forEach((row, q) => row.forEach((w, k) => {
        if (w >= CELL_MIN) svg("rect", { class: "hx-cell", x: k, y: q, width: 1, height: 1, "fill-opacity": String(w) }, map);
      }));
    }

    function draw() {
      if (!state.tokens) return;
      const { sentence, tokens } = state;
      const shown = [...state.heads].sort((a, b) => a - b);
      const row = state.pointed !== null ? state.pointed : state.chosen;
      lines.textContent = "";
      shown.forEach((h, order) => {
        const dy = (order - (shown.length - 1) / 2) * 3; // heads side by side, not on top
        state.result.weights[h].forEach((weights, q) => {
          if (row !== null && q !== row) return;
          weights.forEach((w, k) => {
            if (w < LINE_MIN) return;
            svg("line", {
              class: "hx-line hx-h" + (h % COLOURS), x1: LEFT + 8, y1: y(q) + dy, x2: RIGHT - 6, y2: y(k) + dy,
              "stroke-opacity": String(FLOOR + (1 - FLOOR) * w), "data-head": String(h),
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
      // each head's push on the answer, its bar from the middle toward its side (empty when off)
      const push = state.result.push, most = Math.max(...state.every.push.map(Math.abs), 1e-9);
      pushes.forEach((node, h) => {
        const bar = node.querySelector(".hx-bar");
        const size = (50 * Math.abs(push[h])) / most;
        bar.style.width = `${size}%`;
        bar.style.left = `${push[h] < 0 ? 50 - size : 50}%`;
        node.dataset.push = String(push[h]);
        node.dataset.side = push[h] < 0 ? "minus" : push[h] > 0 ? "plus" : "none";
        showPush[h](state.removed.has(h) ? 1 : 0);
        showChange[h](h === state.toggled ? key(state.removed) : null);
      });
      toggles.forEach((button, h) => {
        button.setAttribute("aria-pressed", String(state.heads.has(h)));
        button.closest(".hx-card").classList.toggle("hx-off", state.removed.has(h));
      });
      const now = predicted(state.result);
      showAnswer(Object.keys(state.runs).indexOf(key(state.removed)));
      note.textContent = sentence.inside ? "" : text["outside_" + sentence.task];
      note.hidden = sentence.inside;
      Object.assign(answer.dataset, {
        prediction: now.c, probability: now.p, verdict: mark(now.c), inside: String(sentence.inside),
        why: sentence.why || "", decide: nothing(key(state.removed)),
      });
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
