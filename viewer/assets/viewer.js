// rlm trajectory viewer. One code path for a file and a live view: events
// come either from the application/x-ndjson script elements the
// file embeds or from an EventSource (live), and each goes through ingest();
// update() then renders what changed. Step bodies render lazily when they
// come near the viewport, and long texts show bounded excerpts, so a
// 50 MB trajectory never puts 50 MB into the DOM.
(function () {
  'use strict';
  var CFG = JSON.parse(document.getElementById('rlm-config').textContent);
  var KNOWN_VERSION = CFG.known_version || 1;
  var KNOWN = {run_start: 1, run_end: 1, request: 1, reply: 1, exec: 1, observation: 1, deferred: 1,
    sub_call: 1, submit: 1, compression: 1, child_start: 1, child_end: 1, resume: 1};
  var TEXT_LIMIT = 4000;   // chars of a long text shown before "show more"
  // HEADER_LIMIT is the excerpt of the query and the answer in a run's header
  // (a 20 MB answer is one click away, not a 20 M-character page).
  var HEADER_LIMIT = 2000;
  var SIDE_STEPS = 400;    // step links per run in the side tree
  var sources = [];
  var state = {q: '', hits: [], hitIdx: -1, rendered: false, live: null, liveError: null};
  // A server that wants a bearer token (rlm serve with a token) is opened
  // as VIEW_URL#token=TOKEN: the fragment never reaches a server or its
  // logs; the page takes the token out of the address (and the history)
  // at once and sends it only in the Authorization header of its event
  // stream requests.
  var TOKEN = null;
  if (CFG.events_url) {
    var tm = /(^#|&)token=([^&]*)/.exec(location.hash);
    if (tm) {
      try { TOKEN = decodeURIComponent(tm[2]); } catch (e) { TOKEN = tm[2]; }
      var rest = location.hash.replace(/(^#|&)token=[^&]*/, '$1').replace(/^#&/, '#').replace(/&$/, '');
      history.replaceState(null, '', location.pathname + location.search + (rest === '#' ? '' : rest));
    }
  }
  var t0 = performance.now();

  // ---------- small DOM helpers ----------
  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(e, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) { for (var i = 0; i < c.length; i++) add(e, c[i]); return; }
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  function pill(text, cls, title) { return el('span', {class: 'pill ' + (cls || ''), title: title}, text); }
  function fmtN(n) { return n == null || isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'); }
  function fmtMs(ms) {
    if (ms == null) return '–';
    if (ms < 1000) return ms + ' ms';
    var s = ms / 1000;
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    var m = Math.floor(s / 60);
    return m + 'm' + String(Math.round(s % 60)).padStart(2, '0') + 's';
  }
  function fmtUSD(x) { return x == null ? '–' : '$' + (x < 0.01 ? x.toFixed(5) : x.toFixed(3)); }
  function fmtChars(n) {
    if (n < 10000) return fmtN(n) + ' chars';
    if (n < 1e6) return (n / 1000).toFixed(1) + 'k chars';
    return (n / 1e6).toFixed(1) + 'M chars';
  }
  // usageText renders a usage of child_end or run_end's tree_usage: calls,
  // tokens in and out, cost when known, active and wall time.
  function usageText(u) {
    var parts = [fmtN(u.calls) + (u.calls === 1 ? ' call' : ' calls'),
      fmtN(u.prompt_tokens) + ' in / ' + fmtN(u.completion_tokens) + ' out tokens'];
    if (u.cost_known) parts.push(fmtUSD(u.cost_usd));
    if (u.active_ms != null) parts.push('active ' + fmtMs(u.active_ms));
    if (u.wall_ms != null) parts.push('wall ' + fmtMs(u.wall_ms));
    return parts.join(' · ');
  }
  function short(s, n) { s = String(s == null ? '' : s); return s.length > n ? s.slice(0, n - 1) + '…' : s; }
  function json(x) { try { return JSON.stringify(x, null, 2); } catch (e) { return String(x); } }
  function link(src, runId, step) {
    var h = '#' + (src && src.idx ? 'src/' + src.idx + '/' : '') + 'run/' + encodeURIComponent(runId);
    return step ? h + '/step/' + step : h;
  }

  // ---------- model ----------
  function newSource(idx, meta) {
    return {idx: idx, meta: meta || {}, name: (meta && meta.name) || ('source ' + idx), runs: new Map(), runOrder: [],
      problems: [], versions: {}, unknownTypes: {}, events: 0, offset: 0, lastT: 0,
      series: [], maxReq: 1, dirtyRuns: new Set(), ended: false};
  }
  function parentId(id) {
    var p = id.split('.');
    return p.length >= 3 ? p.slice(0, p.length - 2).join('.') : null;
  }
  function getRun(src, id) {
    var r = src.runs.get(id);
    if (!r) {
      r = {id: id, src: src, parent: id === '0' ? null : parentId(id), start: null, end: null, steps: new Map(),
        stepList: [], runEvents: [], children: [], shells: 0, el: null, stepsEl: null, hdrEl: null};
      src.runs.set(id, r);
      src.runOrder.push(r);
    }
    return r;
  }
  function getStep(run, n) {
    var s = run.steps.get(n);
    if (!s) {
      s = {n: n, run: run, events: [], subs: 0, err: false, sub: false, submitted: null, tokens: 0, req: null,
        nudge: false, fin: false, miss: false, comp: false, t0: null, t1: null, text: null, el: null,
        rendered: false, dirty: false, childIds: [], unknown: 0};
      run.steps.set(n, s);
      if (!run.stepList.length || run.stepList[run.stepList.length - 1].n < n) run.stepList.push(s);
      else { run.stepList.push(s); run.stepList.sort(function (a, b) { return a.n - b.n; }); }
    }
    return s;
  }

  // ---------- lazy parsing ----------
  // A long line (a step's output, a sub-call's prompt and response) is not
  // parsed when it is read: lightParse parses a copy whose long string
  // values are replaced by markers, and keeps their JSON literals (slices
  // of the text read, not copies); resolve() parses them when the step is
  // shown or searched. Events whose long fields other code reads at once
  // (run_start, child_start, ...) are parsed whole.
  var LAZY_LINE = 2048;    // lines from this length are parsed lazily
  var LAZY_STRING = 256;   // string values from this length are left in the text
  var LAZY_TYPES = {exec: 1, reply: 1, sub_call: 1, observation: 1};
  var MARK = '\u0000rlm-lazy-' + Math.random().toString(36).slice(2) + ':';
  function lightParse(line) {
    var out = [], raw = [], i = 0, n = line.length;
    for (;;) {
      var q = line.indexOf('"', i);
      if (q < 0) break;
      var e = q + 1;
      for (;;) { // the closing quote: one not escaped by an odd run of backslashes
        e = line.indexOf('"', e);
        if (e < 0) return null;
        var b = e - 1;
        while (line.charCodeAt(b) === 92) b--;
        if ((e - 1 - b) % 2 === 0) break;
        e++;
      }
      var next = e + 1;
      while (next < n && (line.charCodeAt(next) === 32 || line.charCodeAt(next) === 9)) next++;
      if (e - q > LAZY_STRING && line.charCodeAt(next) !== 58 /* : a key */) {
        out.push(line.slice(i, q), JSON.stringify(MARK + raw.length));
        raw.push(line.slice(q, e + 1));
      } else {
        out.push(line.slice(i, e + 1));
      }
      i = e + 1;
    }
    if (!raw.length) return null;
    out.push(line.slice(i));
    var ev = JSON.parse(out.join(''));
    if (!ev || typeof ev !== 'object' || !LAZY_TYPES[ev.type] || !ev.step) return null; // only step events are resolved
    Object.defineProperty(ev, '_raw', {value: raw, writable: true});
    return ev;
  }
  // resolve parses the long strings of a step's events that lightParse
  // left in the text.
  function resolve(s) {
    if (!s.lazy) return;
    s.lazy = false;
    for (var i = 0; i < s.events.length; i++) {
      var ev = s.events[i];
      if (!ev._raw) continue;
      ev.data = fill(ev.data, ev._raw);
      ev._raw = null;
    }
  }
  function fill(x, raw) {
    if (typeof x === 'string') {
      return x.lastIndexOf(MARK, 0) === 0 ? JSON.parse(raw[+x.slice(MARK.length)]) : x;
    }
    if (x && typeof x === 'object') for (var k in x) x[k] = fill(x[k], raw);
    return x;
  }

  function ingestLine(src, line) {
    if (!line) return;
    var ev = null;
    try {
      if (line.length >= LAZY_LINE) ev = lightParse(line);
      if (!ev) ev = JSON.parse(line);
    } catch (e) {
      ev = {type: 'rlm.unparsed', line: src.events + 1, raw: line, error: String(e.message || e)};
    }
    ingest(src, ev);
  }

  function ingest(src, ev) {
    src.events++;
    if (!ev || typeof ev !== 'object' || Array.isArray(ev)) {
      ev = {type: 'rlm.unparsed', line: src.events, raw: JSON.stringify(ev), error: 'not a JSON object'};
    }
    if (ev.type === 'rlm.unparsed') { src.problems.push(ev); return; }
    if (typeof ev.v === 'number') src.versions[ev.v] = (src.versions[ev.v] || 0) + 1;
    var d = ev.data && typeof ev.data === 'object' ? ev.data : {};
    var t = (typeof ev.elapsed_ms === 'number' ? ev.elapsed_ms : src.lastT - src.offset) + src.offset;
    if (ev.type === 'resume') { src.offset = src.lastT; t = src.lastT; }
    src.lastT = Math.max(src.lastT, t);
    ev._t = t;
    var run = getRun(src, typeof ev.run === 'string' ? ev.run : String(ev.run == null ? '?' : ev.run));
    src.dirtyRuns.add(run);
    if (!KNOWN[ev.type]) src.unknownTypes[ev.type] = (src.unknownTypes[ev.type] || 0) + 1;
    if (ev.type === 'run_start') {
      run.start = d;
      if (d.parent != null) run.parent = String(d.parent);
      if (run.parent) {
        var p = getRun(src, run.parent);
        if (p.children.indexOf(run.id) < 0) p.children.push(run.id);
        src.dirtyRuns.add(p);
      }
      return;
    }
    if (ev.type === 'run_end') { run.end = d; if (run.id === '0') src.ended = true; return; }
    if (!ev.step) { run.runEvents.push(ev); return; }
    var s = getStep(run, ev.step);
    s.events.push(ev);
    if (ev._raw) s.lazy = true;
    s.text = null;
    s.dirty = true;
    if (s.t0 == null) s.t0 = t;
    s.t1 = t;
    switch (ev.type) {
      case 'request':
        s.req = d;
        var tot = d.total_tokens || 0;
        if (tot > src.maxReq) src.maxReq = tot;
        if (d.nudge) s.nudge = true;
        if (d.final_extraction) s.fin = true;
        if (run.lastHash && d.prefix_hash && d.prefix_hash !== run.lastHash) { s.miss = true; d._miss = true; }
        if (d.prefix_hash) run.lastHash = d.prefix_hash;
        break;
      case 'reply':
        if (d.error) s.err = true;
        var u = d.usage || {};
        s.tokens += (u.prompt_tokens || 0) + (u.completion_tokens || 0);
        src.series.push({t: t, tok: (u.prompt_tokens || 0) + (u.completion_tokens || 0), calls: 1});
        break;
      case 'exec': if (d.error) s.err = true; break;
      case 'sub_call':
        s.subs++; s.sub = true;
        if (d.error) s.err = true;
        var su = d.usage || {};
        if (!d.memoized && d.kind !== 'find_relevant' || d.method === 'embedding' && !d.memoized) {
          src.series.push({t: t, tok: (su.prompt_tokens || 0) + (su.completion_tokens || 0), calls: d.calls || 1});
        }
        break;
      case 'deferred':
        if (d.started) s.sub = true;
        if (d.failed && d.failed.length) s.err = true;
        break;
      case 'submit': s.submitted = d.valid ? 'ok' : (s.submitted === 'ok' ? 'ok' : 'rejected'); if (!d.valid) s.err = true; break;
      case 'compression': s.comp = true; break;
      case 'child_start':
        s.sub = true;
        if (d.child && s.childIds.indexOf(d.child) < 0) s.childIds.push(d.child);
        if (d.child) { var c = getRun(src, String(d.child)); c.parent = run.id; c.startedBy = s; c.childStart = d;
          if (run.children.indexOf(c.id) < 0) run.children.push(c.id); }
        break;
      case 'child_end':
        if (d.child) { var ce = getRun(src, String(d.child)); ce.childEnd = d; }
        if (d.error) s.err = true;
        break;
      default:
        if (!KNOWN[ev.type]) s.unknown++;
    }
  }

  // ---------- search text ----------
  function stepText(s) {
    if (s.text != null) return s.text;
    resolve(s);
    var parts = [];
    for (var i = 0; i < s.events.length; i++) {
      var d = s.events[i].data || {};
      switch (s.events[i].type) {
        case 'reply': parts.push(d.content || '', d.error || ''); (d.tool_calls || []).forEach(function (tc) { parts.push(tc.arguments || ''); }); break;
        case 'exec': parts.push(d.code || '', d.output || '', d.error || ''); break;
        case 'observation': parts.push(d.engine || ''); (d.tool_results || []).forEach(function (r) { parts.push(r.content || ''); }); break;
        case 'sub_call': parts.push(d.prompt || '', d.response || '', d.error || '', d.kind || ''); break;
        case 'submit': parts.push(JSON.stringify(d.outputs || ''), d.error || ''); break;
        case 'child_start': parts.push(d.query || ''); break;
        case 'child_end': parts.push(d.answer || '', d.error || ''); break;
        case 'request': break;
        default: parts.push(JSON.stringify(d));
      }
    }
    s.text = parts.join('\n').toLowerCase();
    return s.text;
  }

  // ---------- python highlighting ----------
  var PY_KW = {};
  ('False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case')
    .split(' ').forEach(function (k) { PY_KW[k] = 1; });
  var PY_BI = {};
  ('print len range str int float bool list dict set tuple sorted enumerate zip map filter sum min max abs any all isinstance repr type SUBMIT FINAL FINAL_VAR llm_query llm_query_batched rlm_query rlm_query_batched children summarize find_relevant search chunk show_vars outputs context')
    .split(' ').forEach(function (k) { PY_BI[k] = 1; });
  var PY_RE = /(#[^\n]*)|("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|[rbfuRBFU]{0,2}"(?:\\.|[^"\\\n])*"?|[rbfuRBFU]{0,2}'(?:\\.|[^'\\\n])*'?)|(\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|([A-Za-z_]\w*)/g;
  function highlight(code) {
    var f = document.createDocumentFragment(), last = 0, m;
    PY_RE.lastIndex = 0;
    while ((m = PY_RE.exec(code)) !== null) {
      var cls = m[1] ? 'hc' : m[2] ? 'hs' : m[3] ? 'hn' : PY_KW[m[4]] ? 'hk' : PY_BI[m[4]] ? 'hb' : null;
      if (!cls) continue;
      if (m.index > last) f.appendChild(document.createTextNode(code.slice(last, m.index)));
      f.appendChild(el('span', {class: cls}, m[0]));
      last = m.index + m[0].length;
      if (m[0].length === 0) PY_RE.lastIndex++;
    }
    if (last < code.length) f.appendChild(document.createTextNode(code.slice(last)));
    return f;
  }

  // ---------- bounded text ----------
  // textBox shows text in a <pre>, at most limit chars at first (head and
  // tail, the cut marked); "show more" quadruples the limit.
  // BIDI matches the invisible controls that reorder or hide text
  // (Trojan Source): they are shown escaped, as visible markers.
  var BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
  function showControls(s) {
    return s.replace(BIDI, function (c) { return '\u27E6U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') + '\u27E7'; });
  }
  function textBox(text, opts) {
    opts = opts || {};
    text = showControls(text == null ? '' : String(text));
    var box = el('div', {class: 'box ' + (opts.cls || '')});
    var limit = opts.limit || TEXT_LIMIT;
    function draw() {
      box.textContent = '';
      var pre = el('pre', {class: opts.code ? 'code' : 'text'});
      var shown = text;
      if (text.length > limit) {
        var head = Math.floor(limit * 0.75), tail = limit - head;
        add(pre, opts.code ? highlight(text.slice(0, head)) : text.slice(0, head));
        pre.appendChild(el('span', {class: 'cut'}, '… ' + fmtChars(text.length - limit) + ' not shown …'));
        add(pre, opts.code ? highlight(text.slice(text.length - tail)) : text.slice(text.length - tail));
        box.appendChild(pre);
        box.appendChild(el('div', {class: 'more'},
          el('button', {onclick: function () { limit = Math.min(text.length, limit * 4); draw(); }},
            'show more (' + fmtChars(text.length) + ' in all)')));
        if (state.q) hiddenHits(box, text, head, text.length - tail);
        shown = null;
      } else {
        add(pre, opts.code ? highlight(text) : text);
        box.appendChild(pre);
      }
      if (shown == null || state.q) markIn(box);
    }
    draw();
    return box;
  }
  // hiddenHits lists search matches that fall in the part of text not shown.
  function hiddenHits(box, text, from, to) {
    var low = text.toLowerCase(), i = low.indexOf(state.q, from), n = 0;
    var list = el('div', {class: 'more'});
    while (i >= 0 && i < to && n < 5) {
      var a = Math.max(0, i - 60), b = Math.min(text.length, i + state.q.length + 60);
      list.appendChild(el('div', {class: 'mono'}, el('span', {class: 'muted'}, 'match at char ' + fmtN(i) + ': '),
        '…' + text.slice(a, i), el('mark', null, text.slice(i, i + state.q.length)), text.slice(i + state.q.length, b) + '…'));
      n++;
      i = low.indexOf(state.q, i + 1);
    }
    if (n) box.appendChild(list);
  }
  // markIn wraps the search query's matches in the text nodes of root.
  function markIn(root) {
    if (!state.q) return;
    var q = state.q, walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), nodes = [], n;
    while ((n = walker.nextNode())) if (n.nodeValue.toLowerCase().indexOf(q) >= 0 && n.parentNode.nodeName !== 'MARK') nodes.push(n);
    var count = 0;
    for (var k = 0; k < nodes.length && count < 300; k++) {
      var node = nodes[k], v = node.nodeValue, low = v.toLowerCase(), f = document.createDocumentFragment(), last = 0, i;
      while ((i = low.indexOf(q, last)) >= 0 && count < 300) {
        f.appendChild(document.createTextNode(v.slice(last, i)));
        f.appendChild(el('mark', null, v.slice(i, i + q.length)));
        last = i + q.length;
        count++;
      }
      f.appendChild(document.createTextNode(v.slice(last)));
      node.parentNode.replaceChild(f, node);
    }
  }
  function unmark(root) {
    var ms = root.querySelectorAll('mark');
    for (var i = 0; i < ms.length; i++) {
      var m = ms[i];
      if (m.classList.length) continue;
      m.parentNode.replaceChild(document.createTextNode(m.textContent), m);
    }
    root.normalize();
  }

  // ---------- step rendering ----------
  function blk(label, content, extra) {
    return el('div', {class: 'blk'}, el('div', {class: 'lbl'}, label, extra), content);
  }
  function stepHeader(s) {
    var h = el('header', {onclick: function (e) { if (e.target.nodeName !== 'A') s.el.classList.toggle('collapsed'); }},
      el('a', {class: 'n', href: link(s.run.src, s.run.id, s.n), title: 'link to this step'}, 'Step ' + s.n));
    if (s.req) add(h, pill(fmtN(s.req.total_tokens) + ' tok', '', 'request tokens (system + meta + query + dynamic)'));
    if (s.nudge) add(h, pill('nudge', 'warn', 'this request carried the nudge after a reply without code'));
    if (s.fin) add(h, pill('final extraction', 'warn', 'the request after the iteration limit asking for SUBMIT'));
    if (s.miss) add(h, pill('cache miss', 'warn', 'the prompt prefix (system + meta) changed since the previous request'));
    if (s.comp) add(h, pill('compressed', 'info'));
    if (s.subs) add(h, pill(s.subs + ' sub-call' + (s.subs > 1 ? 's' : ''), 'info'));
    if (s.childIds.length) add(h, pill(s.childIds.length + ' child run' + (s.childIds.length > 1 ? 's' : ''), 'info'));
    if (s.err) add(h, pill('error', 'err'));
    if (s.submitted === 'ok') add(h, pill('SUBMIT', 'ok'));
    else if (s.submitted === 'rejected') add(h, pill('SUBMIT rejected', 'err'));
    if (s.unknown) add(h, pill(s.unknown + ' unknown event' + (s.unknown > 1 ? 's' : ''), 'warn'));
    add(h, el('span', {class: 'sp'}));
    if (s.t0 != null) add(h, el('span', {class: 'tm', title: 'time since the run started'}, fmtMs(s.t0)));
    return h;
  }
  function stepClasses(s) {
    var c = 'step';
    if (s.err) c += ' has-error';
    if (s.sub) c += ' has-sub';
    if (s.el && s.el.classList.contains('collapsed')) c += ' collapsed';
    if (s.el && s.el.classList.contains('target')) c += ' target';
    if (state.q && stepText(s).indexOf(state.q) >= 0) c += ' hit';
    return c;
  }
  function stepShell(s) {
    var sec = el('section', {class: 'step', 'data-run': s.run.id, 'data-step': s.n, 'data-src': s.run.src.idx});
    s.el = sec;
    sec._step = s;
    sec.className = stepClasses(s);
    sec.appendChild(stepHeader(s));
    sec.appendChild(el('div', {class: 'body'}));
    s.dirty = false;
    observer.observe(sec);
    return sec;
  }
  function refreshShell(s) {
    if (!s.el) return;
    s.el.className = stepClasses(s);
    s.el.replaceChild(stepHeader(s), s.el.firstChild);
    if (s.rendered) renderBody(s);
    s.dirty = false;
  }
  var observer = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      var s = entries[i].target._step;
      if (entries[i].isIntersecting && s && !s.rendered) renderBody(s);
    }
  }, {rootMargin: '600px 0px'});

  function renderBody(s) {
    var body = s.el.lastChild;
    body.textContent = '';
    s.rendered = true;
    resolve(s);
    var obs = null, subs = [], execs = 0;
    s.events.forEach(function (ev) {
      if (ev.type === 'observation') obs = ev.data || {};
      if (ev.type === 'exec') execs++;
    });
    var subsShown = false;
    for (var i = 0; i < s.events.length; i++) {
      var ev = s.events[i], d = ev.data || {};
      switch (ev.type) {
        case 'request': body.appendChild(renderRequest(s, d)); break;
        case 'reply': body.appendChild(renderReply(d, s)); break;
        case 'exec': body.appendChild(renderExec(s, d, obs)); break;
        case 'observation': if (!execs) body.appendChild(blk('Model saw', textBox(d.engine || ''))); break;
        case 'sub_call':
          subs.push(d);
          break;
        case 'deferred':
          if (subs.length && !subsShown) { body.appendChild(renderSubs(subs)); subsShown = true; }
          body.appendChild(renderDeferred(d));
          break;
        case 'submit': body.appendChild(renderSubmit(d)); break;
        case 'compression': body.appendChild(renderCompression(d)); break;
        case 'child_start': body.appendChild(renderChild(s.run.src, d)); break;
        case 'child_end': break;
        default: body.appendChild(renderRaw(ev));
      }
      var ex = extraFields(ev);
      if (ex) body.appendChild(ex);
    }
    if (subs.length && !subsShown) body.appendChild(renderSubs(subs));
    if (state.q) markIn(body);
  }

  // Fields of each event type this viewer shows; others are shown raw.
  var FIELDS = {
    request: 'model messages tokens total_tokens prefix_hash final_extraction nudge over_budget_tokens _miss',
    reply: 'content tool_calls finish_reason usage error',
    exec: 'block code output truncated error submitted tool_call_id',
    observation: 'engine tool_results',
    deferred: 'started failed',
    sub_call: 'seq kind model prompt_hash prompt prompt_chars prompt_cut response response_chars response_cut usage latency_ms memoized error calls method items embedded',
    submit: 'outputs valid error final_extraction tool_call_id',
    compression: 'section pre_tokens post_tokens steps losses kept_refs summarizer',
    child_start: 'child query vars depth mode',
    child_end: 'child answer stop_reason error partial final_extraction usage'
  };
  for (var ft in FIELDS) { var set = {}; FIELDS[ft].split(' ').forEach(function (f) { set[f] = 1; }); FIELDS[ft] = set; }
  function extraFields(ev) {
    var known = FIELDS[ev.type], d = ev.data, extra = null;
    if (!known || !d || typeof d !== 'object') return null;
    for (var k in d) if (!known[k]) { extra = extra || {}; extra[k] = d[k]; }
    return extra && blk('other fields of ' + ev.type, textBox(json(extra), {cls: 'raw'}));
  }

  function renderRequest(s, d) {
    var tk = d.tokens || {}, src = s.run.src, total = d.total_tokens || 0;
    var bar = el('div', {class: 'tokbar', title: 'tokens by envelope section'});
    ['system', 'meta', 'query', 'dynamic'].forEach(function (k) {
      if (tk[k]) bar.appendChild(el('span', {class: 's-' + k, style: 'width:' + (100 * tk[k] / src.maxReq).toFixed(2) + '%',
        title: k + ': ' + fmtN(tk[k]) + ' tokens'}));
    });
    var bud = s.run.start && s.run.start.budgets;
    var lbl = [fmtN(total) + ' tokens: system ' + fmtN(tk.system) + ' · meta ' + fmtN(tk.meta) + ' · query ' + fmtN(tk.query) + ' · dynamic ' + fmtN(tk.dynamic)];
    var extra = [];
    if (d.model) extra.push(pill(d.model));
    if (d.prefix_hash) extra.push(pill('prefix ' + d.prefix_hash, d._miss ? 'warn' : '', d._miss ? 'prefix changed: a prompt-cache miss' : 'sha256 of the system and meta sections'));
    if (d._miss) extra.push(pill('cache miss', 'warn'));
    if (d.nudge) extra.push(pill('nudge', 'warn'));
    if (d.final_extraction) extra.push(pill('final extraction', 'warn'));
    if (d.over_budget_tokens) extra.push(pill(fmtN(d.over_budget_tokens) + ' over the history budget', 'err'));
    if (bud && bud.dynamic && tk.dynamic != null) {
      var left = (tk.system || 0) + (tk.meta || 0) + (tk.query || 0);
      bar.appendChild(el('span', {class: 'budget', style: 'left:' + Math.min(99.5, 100 * (left + bud.dynamic) / src.maxReq).toFixed(2) + '%',
        title: 'history budget: ' + fmtN(bud.dynamic) + ' tokens'}));
    }
    return el('div', {class: 'blk'}, el('div', {class: 'lbl'}, 'Request', extra), bar, el('div', {class: 'muted mono', style: 'font-size:11.5px'}, lbl));
  }

  function renderReply(d, s) {
    var ran = {};
    s.events.forEach(function (ev, i) { if (ev.type === 'exec' && ev.data) ran[String(ev.data.code || '').trim()] = ev.data.block || i; });
    var wrap = el('div');
    if (d.error) wrap.appendChild(textBox(d.error, {cls: 'err'}));
    var content = d.content || '';
    if (content) {
      var re = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g, last = 0, m;
      while ((m = re.exec(content)) !== null) {
        if (m.index > last) { var tx = content.slice(last, m.index).trim(); if (tx) wrap.appendChild(textBox(tx)); }
        if (ran[m[2].trim()] != null) wrap.appendChild(el('div', {class: 'muted', style: 'font-size:12px'}, '↓ code block ' + ran[m[2].trim()] + ', run below'));
        else wrap.appendChild(textBox(m[2], {code: true}));
        last = re.lastIndex;
        if (m[0].length === 0) re.lastIndex++;
      }
      var rest = content.slice(last).trim();
      if (rest) wrap.appendChild(textBox(rest));
    }
    (d.tool_calls || []).forEach(function (tc) {
      var args = tc.arguments || '', code = null;
      try { var a = JSON.parse(args); if (a && typeof a.code === 'string') code = a.code; } catch (e) { /* shown raw */ }
      wrap.appendChild(blk('tool call ' + (tc.name || '') + (tc.id ? ' (' + tc.id + ')' : ''), code != null ? textBox(code, {code: true}) : textBox(args)));
    });
    var u = d.usage || {}, extra = [];
    if (u.prompt_tokens != null) extra.push(pill(fmtN(u.prompt_tokens) + ' in · ' + fmtN(u.completion_tokens) + ' out' + (u.cached_tokens ? ' · ' + fmtN(u.cached_tokens) + ' cached' : '')));
    if (d.finish_reason) extra.push(pill(d.finish_reason));
    if (d.error) extra.push(pill('failed', 'err'));
    return blk('Reply', wrap, extra);
  }

  function renderExec(s, d, obs) {
    var wrap = el('div');
    wrap.appendChild(textBox(d.code || '', {code: true}));
    var out = d.output || '';
    var saw = null;
    if (obs) {
      if (d.tool_call_id && obs.tool_results) obs.tool_results.forEach(function (r) { if (r.tool_call_id === d.tool_call_id) saw = r.content; });
      if (saw == null) saw = obs.engine || '';
    }
    var pane = el('div', {class: 'out'});
    var tabs = el('span', {class: 'tabs'});
    function show(which) {
      pane.textContent = '';
      for (var i = 0; i < tabs.children.length; i++) tabs.children[i].classList.toggle('on', tabs.children[i].dataset.w === which);
      if (which === 'saw') pane.appendChild(textBox(saw));
      else {
        if (d.truncated) pane.appendChild(el('span', {class: 'cut'}, 'the model saw an excerpt of this output (head and tail); all ' + fmtChars(out.length) + ' are in outputs[' + s.n + ']'));
        pane.appendChild(out ? textBox(out) : el('div', {class: 'muted'}, '(no output)'));
      }
    }
    tabs.appendChild(el('button', {'data-w': 'full', onclick: function () { show('full'); }}, 'full output'));
    if (saw != null) tabs.appendChild(el('button', {'data-w': 'saw', onclick: function () { show('saw'); }}, 'model saw'));
    show('full');
    var extra = [tabs];
    if (d.truncated) extra.push(pill('cut for the model', 'warn'));
    if (d.submitted) extra.push(pill('submitted', 'ok'));
    wrap.appendChild(blk('Output', pane, extra));
    if (d.error) wrap.appendChild(blk('Error', textBox(d.error, {cls: 'err'})));
    return blk('Code' + (d.block > 1 ? ' block ' + d.block : ''), wrap, d.tool_call_id ? pill(d.tool_call_id) : null);
  }

  function renderSubs(subs) {
    var tb = el('table', {class: 'subs'}, el('tr', null, el('th', null, '#'), el('th', null, 'kind'), el('th', null, 'model'),
      el('th', {class: 'num'}, 'tokens'), el('th', {class: 'num'}, 'latency'), el('th', null, 'prompt'), el('th', null, '')));
    subs.forEach(function (d) {
      var u = d.usage || {};
      var flags = [];
      if (d.memoized) flags.push(pill('memoized', 'info', 'answered by an identical earlier call: nothing was sent'));
      if (d.error) flags.push(pill('failed', 'err'));
      if (d.method) flags.push(pill(d.method));
      var tok = (u.prompt_tokens || 0) + (u.completion_tokens || 0);
      var row = el('tr', {class: 'op' + (d.error ? ' e' : '')},
        el('td', {class: 'num'}, d.seq != null ? d.seq : ''), el('td', null, d.kind || '?'), el('td', {class: 'mono'}, d.model || ''),
        el('td', {class: 'num', title: fmtN(u.prompt_tokens) + ' in, ' + fmtN(u.completion_tokens) + ' out'}, tok ? fmtN(tok) : '–'),
        el('td', {class: 'num'}, fmtMs(d.latency_ms)), el('td', {class: 'mono'}, short(d.prompt, 90)), el('td', null, flags));
      var det = null;
      row.addEventListener('click', function () {
        if (det) { det.remove(); det = null; return; }
        var cell = el('td', {colspan: 7});
        var info = [pill('prompt ' + (d.prompt_hash || '?'), '', 'sha256 of the whole prompt')];
        if (d.prompt_chars != null) info.push(pill(fmtChars(d.prompt_chars)));
        if (d.prompt_cut) info.push(pill('excerpt', 'warn', 'recorded without --trajectory-full: head and tail'));
        if (d.items) info.push(pill(d.items + ' items'));
        if (d.embedded != null && d.method === 'embedding') info.push(pill(d.embedded + ' embedded'));
        if (d.calls) info.push(pill(d.calls + ' calls'));
        add(cell, blk('Prompt', textBox(d.prompt || ''), info));
        if (d.error) add(cell, blk('Error', textBox(d.error, {cls: 'err'})));
        if (d.response != null) add(cell, blk('Response', textBox(d.response), d.response_cut ? pill('excerpt of ' + fmtChars(d.response_chars), 'warn') : null));
        det = el('tr', {class: 'detail'}, cell);
        row.after(det);
        if (state.q) markIn(det);
      });
      tb.appendChild(row);
    });
    return blk('Sub-calls', el('div', {style: 'overflow-x:auto'}, tb), pill('click a row for its prompt and response'));
  }

  function renderDeferred(d) {
    var w = el('div', {class: 'muted', style: 'font-size:12.5px'}, 'deferred operations started: ' + (d.started || 0));
    if (d.failed && d.failed.length) {
      var ul = el('ul', {class: 'box err'});
      d.failed.forEach(function (f) { ul.appendChild(el('li', null, (f.kind || 'op') + ': ' + (f.error || ''))); });
      w.appendChild(ul);
    }
    return el('div', {class: 'blk'}, w);
  }

  function renderSubmit(d) {
    var extra = [d.valid ? pill('accepted', 'ok') : pill('rejected', 'err')];
    if (d.final_extraction) extra.push(pill('final extraction', 'warn'));
    var w = el('div', null, textBox(json(d.outputs), {code: false}));
    if (d.error) w.appendChild(textBox(d.error, {cls: 'err'}));
    return blk('SUBMIT', w, extra);
  }

  function renderCompression(d) {
    var kv = el('div', {class: 'kv'});
    function row(k, v) { kv.appendChild(el('div', {class: 'k'}, k)); kv.appendChild(el('div', null, v)); }
    row('tokens', fmtN(d.pre_tokens) + ' → ' + fmtN(d.post_tokens));
    if (d.steps) row('steps', d.steps.join(', '));
    if (d.summarizer) row('summarizer', d.summarizer);
    if (d.kept_refs && d.kept_refs.length) row('kept refs', d.kept_refs.join(', '));
    if (d.losses && d.losses.length) row('losses', el('ul', {style: 'margin:0;padding-left:18px'}, d.losses.map(function (l) { return el('li', null, typeof l === 'string' ? l : json(l)); })));
    return blk('Compression (' + (d.section || 'dynamic') + ')', el('div', {class: 'box'}, kv));
  }

  function renderChild(src, d) {
    var child = src.runs.get(String(d.child));
    var end = child && child.childEnd, cs = [];
    cs.push(pill(d.mode === 'llm' ? 'plain sub-call (depth limit)' : 'child RLM', 'info'));
    if (end) {
      if (end.error) cs.push(pill('error', 'err'));
      else if (end.partial) cs.push(pill('partial' + (end.stop_reason ? ': ' + end.stop_reason : ''), 'warn'));
      else if (end.stop_reason) cs.push(pill(end.stop_reason, end.stop_reason === 'submit' ? 'ok' : 'warn'));
    } else cs.push(pill('running', 'info'));
    var usage = end && end.usage ? el('span', {class: 'child-usage muted', title: 'the child\'s model usage and time, its own children included'},
      ' ' + usageText(end.usage) + ' ') : ' ';
    var det = el('details', {class: 'child', 'data-child': d.child},
      el('summary', null, el('span', {class: 'rid'}, 'rlm_query ' + d.child), cs, usage, el('span', {class: 'muted'}, short(d.query, 140))));
    var body = el('div');
    det.appendChild(body);
    function fill() {
      if (body.firstChild) return;
      add(body, blk('Query', textBox(d.query || '')));
      if (d.vars && d.vars.length) add(body, el('div', {class: 'muted'}, 'variables: ' + d.vars.join(', ')));
      if (end) add(body, blk('Answer', end.error ? textBox(end.error, {cls: 'err'}) : textBox(end.answer || '')));
      if (child && child.steps.size) add(body, runView(child));
      if (state.q) markIn(body);
    }
    det.addEventListener('toggle', function () { if (det.open) fill(); });
    det._fill = fill;
    if (child) child.detailsEl = det;
    return blk('Child run', det);
  }

  function renderRaw(ev) {
    var label = ev.type && !KNOWN[ev.type] ? 'Unknown event "' + ev.type + '" (shown raw)' : 'Event ' + ev.type;
    var copy = {};
    for (var k in ev) if (k !== '_t') copy[k] = ev[k];
    return blk(label, textBox(json(copy), {cls: 'raw'}));
  }

  // ---------- runs ----------
  function runView(run) {
    var w = el('div', {class: 'run', 'data-run': run.id});
    run.el = w;
    run.hdrEl = el('div', {class: 'runhdr'});
    w.appendChild(run.hdrEl);
    run.stepsEl = el('div', {class: 'steps'});
    w.appendChild(run.stepsEl);
    run.shells = 0;
    fillRun(run);
    return w;
  }
  function fillRun(run) {
    if (!run.el) return;
    run.hdrEl.textContent = '';
    var e = run.end;
    add(run.hdrEl, [run.id === '0' ? 'root run' : 'run ' + run.id, ' · ' + run.stepList.length + ' steps']);
    if (e) add(run.hdrEl, [' · ', pill(e.stop_reason || '?', e.stop_reason === 'submit' ? 'ok' : 'warn')]);
    if (e && e.tree_usage) add(run.hdrEl, el('span', {class: 'tree-usage muted'},
      ' · ' + usageText(e.tree_usage) + (run.children.length ? ' (with its ' + run.children.length + (run.children.length === 1 ? ' child)' : ' children)') : '')));
    run.runEvents.forEach(function (ev) {
      if (ev.type === 'resume') add(run.hdrEl, pill('resumed (' + ((ev.data || {}).recorded_answers || 0) + ' recorded answers)', 'info'));
      else if (!run.rawShown) { add(run.el, renderRaw(ev)); }
    });
    run.rawShown = true;
    for (var i = 0; i < run.stepList.length; i++) {
      var s = run.stepList[i];
      if (!s.el) {
        var sh = stepShell(s), next = run.stepList[i + 1];
        if (next && next.el && next.el.parentNode === run.stepsEl) run.stepsEl.insertBefore(sh, next.el);
        else run.stepsEl.appendChild(sh);
      } else if (s.dirty) refreshShell(s);
    }
  }

  // ---------- header, stats and timeline ----------
  function rootOf(src) { return src.runs.get('0') || src.runOrder[0]; }
  function totals(src) {
    var root = rootOf(src), e = root && root.end, u = e && e.usage, t = {tokens: 0, calls: 0, prompt: 0, completion: 0};
    src.series.forEach(function (p) { t.tokens += p.tok; t.calls += p.calls; });
    if (u) {
      t.prompt = u.PromptTokens || u.prompt_tokens || 0; t.completion = u.CompletionTokens || u.completion_tokens || 0;
      t.tokens = t.prompt + t.completion; t.calls = u.Calls || u.calls || t.calls;
    }
    t.cost = e && (e.cost_known || e.cost_usd) ? e.cost_usd : null;
    t.duration = e ? e.duration_ms : src.lastT;
    t.iterations = e ? e.iterations : (root ? root.stepList.length : 0);
    var errs = 0, subs = 0;
    src.runs.forEach(function (r) { r.steps.forEach(function (s) { if (s.err) errs++; subs += s.subs; }); });
    t.errSteps = errs; t.subCalls = subs; t.runs = src.runs.size;
    // The calls of the root's children (their usage, each with its own
    // children), part of the tree's total above.
    t.childCalls = 0;
    if (root) root.children.forEach(function (id) {
      var c = src.runs.get(id), u = c && c.childEnd && c.childEnd.usage;
      if (u) t.childCalls += u.calls || 0;
    });
    return t;
  }
  function models(src) {
    var root = rootOf(src), cfg = root && root.start && root.start.config, ms = [];
    if (cfg) ['model', 'root_model', 'sub_model', 'embedding_model', 'summarizer_model'].forEach(function (k) {
      if (cfg[k]) ms.push((k === 'model' ? '' : k.replace('_model', '') + ': ') + cfg[k]);
    });
    if (!ms.length) {
      var seen = {};
      src.runs.forEach(function (r) { r.steps.forEach(function (s) { if (s.req && s.req.model) seen[s.req.model] = 1; }); });
      ms = Object.keys(seen);
    }
    return ms;
  }
  function banners(src) {
    var out = [];
    var vs = Object.keys(src.versions).map(Number);
    vs.forEach(function (v) {
      if (v !== KNOWN_VERSION) out.push(el('div', {class: 'banner warn'}, src.name + ': ' + fmtN(src.versions[v]) + (src.versions[v] === 1 ? ' event uses' : ' events use') + ' trajectory schema version ' + v +
        '; this viewer knows version ' + KNOWN_VERSION + ' (orchestrator/TRAJECTORY.md). They are shown as well as it can; fields it does not know appear raw.'));
    });
    if (src.meta.truncated) out.push(el('div', {class: 'banner warn'}, src.name + ': the last line was cut (' + fmtN(src.meta.truncated_bytes) +
      ' bytes without an end): the run crashed or is still being written. Showing the ' + fmtN(src.events - src.problems.length) + ' complete events.'));
    var bad = src.problems.filter(function (p) { return !p.truncated; });
    if (bad.length) {
      var b = el('div', {class: 'banner err'}, src.name + ': ' + bad.length + (bad.length > 1 ? ' lines are not JSON events' : ' line is not a JSON event') + ' (shown raw):');
      bad.slice(0, 5).forEach(function (p) { b.appendChild(el('pre', null, 'line ' + p.line + ': ' + short(p.raw, 500) + (p.error ? '\n  (' + p.error + ')' : ''))); });
      out.push(b);
    }
    var unk = Object.keys(src.unknownTypes);
    if (unk.length) out.push(el('div', {class: 'banner warn'}, src.name + ': event types this viewer does not know, shown raw in their steps: ' +
      unk.map(function (k) { return k + ' (' + src.unknownTypes[k] + ')'; }).join(', ')));
    if (state.liveError) out.push(el('div', {class: 'banner err', id: 'live-error'}, state.liveError));
    else if (!src.runs.size && !state.live) out.push(el('div', {class: 'banner err'}, src.name + ': no events.'));
    return out;
  }
  // metaNotes shows the meta document a run used: its version and the
  // lessons its prompt had, each with the runs whose evidence added it.
  function metaNotes(m) {
    var box = el('div', {class: 'meta-notes'}, 'v' + (m.version || 0) + (m.digest ? ' · ' + String(m.digest).slice(0, 12) : ''));
    var lessons = Array.isArray(m.lessons) ? m.lessons : [];
    if (!lessons.length) { add(box, el('span', {class: 'muted'}, ' · no lessons')); return box; }
    var ul = el('ul', {class: 'lessons'});
    lessons.forEach(function (id) {
      var src = (m.sources && Array.isArray(m.sources[id])) ? m.sources[id] : [];
      ul.appendChild(el('li', null, el('span', {class: 'mono'}, String(id)),
        src.length ? el('span', {class: 'muted'}, ' · added on the evidence of ' + src.map(String).join(', ')) : null));
    });
    add(box, ul);
    return box;
  }
  function header(src) {
    var root = rootOf(src), st = (root && root.start) || {}, e = root && root.end, t = totals(src);
    var h = el('div', {class: 'hdr', id: 'hdr-' + src.idx});
    add(h, el('h1', null, src.name, state.live && !e ? el('span', {class: 'live'}, ' ● live') : null));
    add(h, el('div', {class: 'query'}, st.query ? textBox(st.query, {limit: HEADER_LIMIT}) : '(no run_start event)'));
    var kv = el('div', {class: 'kv'});
    function row(k, v) { if (v == null || v === '') return; kv.appendChild(el('div', {class: 'k'}, k)); kv.appendChild(el('div', null, v)); }
    if (e) {
      var ans = e.answer;
      var status = [pill(e.stop_reason || '?', e.stop_reason === 'submit' ? 'ok' : 'warn')];
      if (e.partial) status.push(pill('partial answer', 'warn', 'stopped by a limit before a valid SUBMIT'));
      if (e.final_extraction) status.push(pill('from the final extraction turn', 'warn'));
      row('answer', el('div', {class: 'answer', id: 'answer-' + src.idx}, ans == null || ans === '' ? '(none)' : textBox(String(ans), {limit: HEADER_LIMIT})));
      if (e.outputs && typeof e.outputs === 'object' && Object.keys(e.outputs).length > 1) row('outputs', el('pre', {class: 'mono'}, json(e.outputs)));
      row('stop', el('span', null, status, e.error ? el('span', {class: 'muted'}, ' ' + e.error) : null));
    } else row('status', state.live ? 'running…' : el('span', null, pill('no run_end', 'warn'), ' the run did not finish (crashed, killed or still running)'));
    row('outputs declared', st.outputs);
    row('models', models(src).join(' · '));
    if (st.protocol) row('protocol', st.protocol);
    if (st.variables && st.variables.length) row('variables', st.variables.map(function (v) { return v.name + ' (' + (v.type || '?') + ', ' + fmtN(v.size_bytes) + ' B)'; }).join(', '));
    var lim = st.limits || {};
    var ls = [];
    for (var k in lim) ls.push(k + ' ' + (k === 'timeout_ms' ? fmtMs(lim[k]) : k === 'max_cost_usd' ? fmtUSD(lim[k]) : fmtN(lim[k])));
    row('limits', ls.join(' · '));
    if (st.budgets) row('budgets', Object.keys(st.budgets).map(function (k) { return k + ' ' + st.budgets[k]; }).join(' · '));
    if (st.meta && typeof st.meta === 'object') row('meta', metaNotes(st.meta));
    var knownStart = {query: 1, depth: 1, parent: 1, protocol: 1, outputs: 1, variables: 1, limits: 1, budgets: 1, config: 1, meta: 1};
    for (var x in st) if (!knownStart[x]) row(x, typeof st[x] === 'object' ? el('pre', {class: 'mono'}, json(st[x])) : String(st[x]));
    var knownEnd = {stop_reason: 1, error: 1, answer: 1, outputs: 1, partial: 1, final_extraction: 1, iterations: 1, usage: 1, usage_by_model: 1, cost_usd: 1, cost_known: 1, duration_ms: 1, metrics: 1,
      tree_usage: 1};
    if (e) for (var y in e) if (!knownEnd[y]) row(y, typeof e[y] === 'object' ? el('pre', {class: 'mono'}, json(e[y])) : String(e[y]));
    h.appendChild(kv);
    var stats = el('div', {class: 'stats'});
    function stat(v, l) { stats.appendChild(el('div', {class: 'stat'}, el('b', null, v), el('span', null, l))); }
    stat(fmtN(t.iterations), 'iterations');
    stat(fmtN(t.tokens), 'tokens' + (t.prompt ? ' (' + fmtN(t.prompt) + ' in, ' + fmtN(t.completion) + ' out)' : ''));
    stat(fmtN(t.calls), 'model calls');
    stat(t.cost != null ? fmtUSD(t.cost) : '–', 'cost');
    stat(fmtMs(t.duration), 'wall time');
    if (e && e.tree_usage && e.tree_usage.active_ms != null) stat(fmtMs(e.tree_usage.active_ms), 'active time');
    stat(fmtN(t.subCalls), 'sub-calls');
    stat(fmtN(t.runs - 1), 'child runs' + (t.childCalls ? ' (' + fmtN(t.childCalls) + ' of the calls)' : ''));
    stat(fmtN(t.errSteps), 'steps with errors');
    h.appendChild(stats);
    if (e && e.metrics) {
      var m = e.metrics, ms = [];
      if (m.prefix_changes) ms.push(pill(m.prefix_changes + ' prefix changes (cache misses)', 'warn'));
      if (m.compressions) ms.push(pill(m.compressions + ' compressions', 'info'));
      if (m.nudges) ms.push(pill(m.nudges + ' nudges', 'warn'));
      if (m.over_budget_requests) ms.push(pill(m.over_budget_requests + ' requests over the history budget', 'err'));
      if (m.max_request_tokens) ms.push(pill('largest request ' + fmtN(m.max_request_tokens) + ' tokens'));
      if (ms.length) h.appendChild(el('div', null, ms));
    }
    h.appendChild(timeline(src, lim, t));
    return h;
  }
  function chart(title, pts, xmax, limit, fmt) {
    var W = 200, H = 50, last = pts.length ? pts[pts.length - 1][1] : 0;
    var ymax = Math.max(last, limit || 0, 1) * 1.05;
    var svg = '<svg viewBox="0 0 ' + W + ' ' + H + '" preserveAspectRatio="none" role="img" aria-label="' + title + '">';
    if (pts.length) {
      var d = 'M0,' + H, prev = H;
      pts.forEach(function (p) {
        var x = (W * p[0] / (xmax || 1)).toFixed(1), y = (H - H * p[1] / ymax).toFixed(1);
        d += ' L' + x + ',' + prev + ' L' + x + ',' + y;
        prev = y;
      });
      d += ' L' + W + ',' + prev;
      svg += '<path class="ar" d="' + d + ' L' + W + ',' + H + ' Z"/><path class="ln" d="' + d + '"/>';
    }
    if (limit) { var ly = (H - H * limit / ymax).toFixed(1); svg += '<line class="lim" x1="0" x2="' + W + '" y1="' + ly + '" y2="' + ly + '"/>'; }
    svg += '</svg>';
    var c = el('div', {class: 'chart'}, el('div', {class: 't'}, el('span', null, title),
      el('span', null, fmt(last) + (limit ? ' / ' + fmt(limit) + ' (' + Math.round(100 * last / limit) + '%)' : ''))));
    var holder = el('div');
    holder.innerHTML = svg; // built above from numbers only
    c.appendChild(holder.firstChild);
    return c;
  }
  function timeline(src, lim, t) {
    var pts = src.series.slice().sort(function (a, b) { return a.t - b.t; });
    var tok = [], calls = [], ct = 0, cc = 0;
    pts.forEach(function (p) { ct += p.tok; cc += p.calls; tok.push([p.t, ct]); calls.push([p.t, cc]); });
    var xmax = Math.max(src.lastT, 1);
    var root = rootOf(src), it = [];
    if (root) root.stepList.forEach(function (s, i) { if (s.t0 != null) it.push([s.t0, i + 1]); });
    var w = el('div', {class: 'timeline', title: 'budget timeline: cumulative use against the run\'s limits over wall time'});
    w.appendChild(chart('tokens', tok, xmax, lim.max_tokens, fmtN));
    w.appendChild(chart('model calls', calls, xmax, lim.max_llm_calls, fmtN));
    w.appendChild(chart('root iterations', it, xmax, lim.max_iterations, fmtN));
    var wall = it.map(function (p) { return [p[0], p[0]]; });
    wall.push([xmax, xmax]);
    w.appendChild(chart('wall time', wall, xmax, lim.timeout_ms, fmtMs));
    if (t.cost != null && ct > 0) {
      // The trajectory has the total cost only: spread it by tokens.
      w.appendChild(chart('cost (spread by tokens)', tok.map(function (p) { return [p[0], t.cost * p[1] / ct]; }), xmax, lim.max_cost_usd, fmtUSD));
    }
    return w;
  }

  // ---------- side tree ----------
  function sideTree() {
    var w = el('div', {class: 'tree'});
    sources.forEach(function (src) {
      if (sources.length > 1) w.appendChild(el('div', {style: 'font-weight:600;margin-top:6px'}, src.name));
      var root = rootOf(src);
      if (!root) return;
      var ul = el('ul');
      ul.appendChild(treeItem(src, root));
      w.appendChild(ul);
    });
    w.appendChild(el('div', {class: 'legend'}, 'tokens:', el('i', {class: 's-system'}), 'system', el('i', {class: 's-meta'}), 'meta',
      el('i', {class: 's-query'}), 'query', el('i', {class: 's-dynamic'}), 'dynamic'));
    w.appendChild(el('div', {class: 'help'}, el('kbd', null, 'j'), '/', el('kbd', null, 'k'), ' next/previous step · ',
      el('kbd', null, '/'), ' search · ', el('kbd', null, 'n'), '/', el('kbd', null, 'N'), ' next/previous match · ',
      el('kbd', null, 'e'), ' errors only · ', el('kbd', null, 's'), ' sub-calls only · ', el('kbd', null, 't'), ' theme'));
    return w;
  }
  function treeItem(src, run) {
    var e = run.end;
    var li = el('li', null, el('a', {class: 'rid', href: link(src, run.id)}, run.id === '0' ? 'root' : run.id), ' ',
      el('span', {class: 'muted'}, run.stepList.length + ' steps'), e ? pill(e.stop_reason || '?', e.stop_reason === 'submit' ? 'ok' : 'warn') : null);
    if (run.start && run.id !== '0') li.appendChild(el('div', {class: 'muted', style: 'font-size:12px'}, short(run.start.query, 80)));
    var steps = el('div', {class: 'steps'});
    var list = run.stepList, n = list.length;
    for (var i = 0; i < n; i++) {
      if (n > SIDE_STEPS && i === SIDE_STEPS - 50) { steps.appendChild(el('span', {class: 'muted'}, '… ' + (n - SIDE_STEPS) + ' more …')); i = n - 50; }
      var s = list[i];
      steps.appendChild(el('a', {href: link(src, run.id, s.n), class: s.err ? 'e' : s.submitted === 'ok' ? 's' : null, title: 'step ' + s.n}, String(s.n)));
    }
    li.appendChild(steps);
    if (run.children.length) {
      var ul = el('ul');
      run.children.forEach(function (id) { var c = src.runs.get(id); if (c) ul.appendChild(treeItem(src, c)); });
      li.appendChild(ul);
    }
    return li;
  }

  // ---------- compare ----------
  function compareTable() {
    var a = sources[0], b = sources[1], ta = totals(a), tb = totals(b);
    var ra = rootOf(a) || {}, rb = rootOf(b) || {}, ea = ra.end || {}, eb = rb.end || {};
    var rows = [
      ['file', a.name, b.name],
      ['query', (ra.start || {}).query, (rb.start || {}).query],
      ['models', models(a).join(' · '), models(b).join(' · ')],
      ['stop reason', ea.stop_reason || 'no run_end', eb.stop_reason || 'no run_end'],
      ['answer', ea.answer, eb.answer],
      ['iterations', fmtN(ta.iterations), fmtN(tb.iterations)],
      ['tokens', fmtN(ta.tokens), fmtN(tb.tokens)],
      ['model calls', fmtN(ta.calls), fmtN(tb.calls)],
      ['cost', fmtUSD(ta.cost), fmtUSD(tb.cost)],
      ['wall time', fmtMs(ta.duration), fmtMs(tb.duration)],
      ['sub-calls', fmtN(ta.subCalls), fmtN(tb.subCalls)],
      ['child runs', fmtN(ta.runs - 1), fmtN(tb.runs - 1)],
      ['steps with errors', fmtN(ta.errSteps), fmtN(tb.errSteps)]
    ];
    var tbl = el('table', {class: 'cmp-table', id: 'compare'});
    rows.forEach(function (r) {
      var diff = r[0] !== 'file' && String(r[1]) !== String(r[2]);
      tbl.appendChild(el('tr', null, el('th', null, r[0]), el('td', {class: diff ? 'diff' : null}, el('div', {class: 'text'}, r[1] == null ? '' : String(r[1]))),
        el('td', {class: diff ? 'diff' : null}, el('div', {class: 'text'}, r[2] == null ? '' : String(r[2])))));
    });
    return tbl;
  }
  function compareSteps(grid) {
    var ra = rootOf(sources[0]), rb = rootOf(sources[1]);
    var max = Math.max(ra ? ra.stepList.length : 0, rb ? rb.stepList.length : 0);
    var have = grid.childElementCount / 2;
    for (var i = 0; i < max; i++) {
      [ra, rb].forEach(function (r, k) {
        var s = r && r.stepList[i];
        var cell = i < have ? grid.children[2 * i + k] : null;
        if (cell && cell._step === s && s) { if (s.dirty) refreshShell(s); return; }
        var n = s ? stepShell(s) : el('div', {class: 'cmp-row-empty'}, 'no step ' + (i + 1) + ' in ' + sources[k].name);
        n._step = s || null;
        if (cell) grid.replaceChild(n, cell); else grid.appendChild(n);
      });
    }
  }

  // ---------- layout and update ----------
  var ui = {};
  function build() {
    var app = document.getElementById('app');
    app.textContent = '';
    var title = sources.length > 1 ? sources[0].name + ' vs ' + sources[1].name : (sources[0] ? sources[0].name : 'trajectory');
    document.title = 'rlm · ' + title;
    ui.search = el('input', {id: 'search', type: 'search', placeholder: 'search code, outputs, prompts… (/)', 'aria-label': 'search'});
    ui.search.addEventListener('input', debounce(function () { setQuery(ui.search.value); }, 150));
    ui.search.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') { e.preventDefault(); nextHit(e.shiftKey ? -1 : 1); }
      if (e.key === 'Escape') { ui.search.value = ''; setQuery(''); ui.search.blur(); }
    });
    ui.info = el('span', {id: 'searchinfo'});
    ui.loading = el('span', {id: 'loading', role: 'status'});
    ui.fErr = el('button', {id: 'f-errors', onclick: function () { toggleFilter('errors'); }, title: 'show only steps with errors (e)'}, 'errors only');
    ui.fSub = el('button', {id: 'f-subs', onclick: function () { toggleFilter('subs'); }, title: 'show only steps with sub-calls or child runs (s)'}, 'sub-calls only');
    var theme = el('button', {id: 'theme', onclick: toggleTheme, title: 'light/dark (t)'}, '◐');
    var collapse = el('button', {onclick: function () { toggleAll(); }, title: 'collapse or expand every step'}, 'collapse all');
    ui.collapse = collapse;
    app.appendChild(el('div', {id: 'bar'}, el('span', {class: 'title'}, 'rlm · ' + short(title, 60)), ui.search, ui.info, ui.loading, ui.fErr, ui.fSub, collapse, theme));
    ui.side = el('nav', {id: 'side'});
    ui.results = el('div', {id: 'results'});
    ui.tree = el('div');
    ui.side.appendChild(ui.results);
    ui.side.appendChild(ui.tree);
    ui.main = el('main', {id: 'main'});
    app.appendChild(el('div', {id: 'layout'}, ui.side, ui.main));
    ui.banners = el('div', {id: 'banners'});
    ui.head = el('div', {id: 'head'});
    ui.main.appendChild(ui.banners);
    ui.main.appendChild(ui.head);
    if (sources.length > 1) {
      ui.grid = el('div', {class: 'cmp-grid', id: 'cmp-steps'});
      ui.main.appendChild(el('h2', {style: 'font-size:14px;margin:14px 0 4px'}, 'Root steps, aligned by step number'));
      ui.main.appendChild(ui.grid);
    } else if (sources.length) {
      ui.runs = el('div', {id: 'runs'});
      ui.main.appendChild(ui.runs);
    }
  }
  function update() {
    if (!ui.main) build();
    loadingNote();
    ui.banners.textContent = '';
    sources.forEach(function (src) { add(ui.banners, banners(src)); });
    ui.head.textContent = '';
    if (sources.length > 1) {
      ui.head.appendChild(compareTable());
      ui.head.appendChild(el('div', {class: 'cmp-grid'}, sources.map(function (s) { return header(s); })));
      compareSteps(ui.grid);
    } else if (sources.length) {
      var src = sources[0];
      ui.head.appendChild(header(src));
      var root = rootOf(src);
      if (root && !root.el) ui.runs.appendChild(runView(root));
    }
    sources.forEach(function (src) {
      src.dirtyRuns.forEach(function (r) { if (r.el) fillRun(r); });
      src.dirtyRuns.clear();
    });
    ui.tree.textContent = '';
    ui.tree.appendChild(sideTree());
    if (state.q) setQuery(state.q, true);
    if (!state.rendered) {
      state.rendered = true;
      requestAnimationFrame(function () {
        window.rlmViewer.firstRenderMs = performance.now(); // since the navigation started
        window.rlmViewer.scriptMs = performance.now() - t0;
        window.rlmViewer.firstRenderEvents = sources.reduce(function (n, s) { return n + s.events; }, 0);
        performance.mark('rlm-first-render');
        document.body.setAttribute('data-ready', '1');
        if (location.hash) go(location.hash, true);
      });
    }
  }
  var pending = false;
  function scheduleUpdate() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; update(); });
  }
  function debounce(fn, ms) { var t; return function () { clearTimeout(t); t = setTimeout(fn, ms); }; }

  // ---------- search ----------
  function setQuery(q, keepPos) {
    q = (q || '').toLowerCase();
    var changed = q !== state.q;
    state.q = q;
    state.hits = [];
    if (q) sources.forEach(function (src) {
      src.runOrder.forEach(function (r) { r.stepList.forEach(function (s) { if (stepText(s).indexOf(q) >= 0) state.hits.push(s); }); });
    });
    if (changed || !keepPos) state.hitIdx = -1;
    // Re-mark rendered steps.
    var secs = document.querySelectorAll('section.step');
    for (var i = 0; i < secs.length; i++) {
      var s = secs[i]._step;
      if (!s) continue;
      var hit = q && stepText(s).indexOf(q) >= 0;
      secs[i].classList.toggle('hit', !!hit);
      if (changed && s.rendered) { renderBody(s); }
    }
    ui.info.textContent = q ? (state.hits.length ? state.hits.length + ' step' + (state.hits.length > 1 ? 's' : '') + ' match' : 'no match') : '';
    ui.results.textContent = '';
    if (q && state.hits.length) {
      state.hits.slice(0, 200).forEach(function (s, k) {
        var txt = stepText(s), i = txt.indexOf(q);
        ui.results.appendChild(el('a', {href: link(s.run.src, s.run.id, s.n), 'data-hit': k},
          (sources.length > 1 ? s.run.src.name + ' · ' : '') + (s.run.id === '0' ? '' : 'run ' + s.run.id + ' · ') + 'step ' + s.n + ' ',
          el('span', {class: 'ctx'}, '…' + txt.slice(Math.max(0, i - 30), i + q.length + 30).replace(/\s+/g, ' ') + '…')));
      });
      if (state.hits.length > 200) ui.results.appendChild(el('div', {class: 'muted'}, '… ' + (state.hits.length - 200) + ' more'));
    }
  }
  function nextHit(dir) {
    if (!state.hits.length) return;
    state.hitIdx = (state.hitIdx + dir + state.hits.length) % state.hits.length;
    var s = state.hits[state.hitIdx];
    ui.info.textContent = (state.hitIdx + 1) + ' of ' + state.hits.length + ' steps';
    location.hash = link(s.run.src, s.run.id, s.n);
  }

  // ---------- navigation ----------
  function reveal(run) {
    // Open the child-run details of every ancestor, outermost first.
    if (!run || run.el && document.body.contains(run.el)) return;
    var chain = [], r = run;
    while (r && r.startedBy) { chain.unshift(r); r = r.src.runs.get(r.parent); }
    chain.forEach(function (c) {
      var s = c.startedBy;
      if (s.run.el == null || !document.body.contains(s.run.el)) return;
      if (!s.rendered) renderBody(s);
      s.el.classList.remove('collapsed');
      var det = s.el.querySelector('details.child[data-child="' + CSS.escape(c.id) + '"]');
      if (det) { det._fill(); det.open = true; }
    });
  }
  function go(hash, initial) {
    var m = /^#(?:src\/(\d+)\/)?run\/([^/]+)(?:\/step\/(\d+))?$/.exec(hash);
    if (!m) return;
    var src = sources[+(m[1] || 0)];
    if (!src) return;
    var run = src.runs.get(decodeURIComponent(m[2]));
    if (!run) return;
    reveal(run);
    var target = run.el;
    if (m[3]) {
      var s = run.steps.get(+m[3]);
      if (!s || !s.el) { if (run.el) target = run.el; } else {
        if (!s.rendered) renderBody(s);
        s.el.classList.remove('collapsed');
        var old = document.querySelectorAll('section.step.target');
        for (var i = 0; i < old.length; i++) old[i].classList.remove('target');
        s.el.classList.add('target');
        target = s.el;
      }
    }
    if (!target) return;
    target.scrollIntoView({block: 'start'});
    // Bodies rendered above the target while scrolling can move it: settle.
    var n = 0;
    (function again() {
      if (++n > 4) return;
      requestAnimationFrame(function () {
        var top = target.getBoundingClientRect().top;
        if (Math.abs(top - 48) > 4) target.scrollIntoView({block: 'start'});
        again();
      });
    })();
  }
  window.addEventListener('hashchange', function () { go(location.hash); });
  function visibleSteps() {
    var all = document.querySelectorAll('section.step'), out = [];
    for (var i = 0; i < all.length; i++) if (all[i].offsetParent !== null) out.push(all[i]);
    return out;
  }
  function stepNav(dir) {
    var vs = visibleSteps();
    if (!vs.length) return;
    var cur = -1;
    for (var i = 0; i < vs.length; i++) if (vs[i].classList.contains('target')) { cur = i; break; }
    if (cur < 0 || !inView(vs[cur])) {
      cur = -1;
      for (var j = 0; j < vs.length; j++) if (vs[j].getBoundingClientRect().top >= 40) { cur = dir > 0 ? j - 1 : j; break; }
    }
    var k = Math.max(0, Math.min(vs.length - 1, cur + dir));
    var s = vs[k]._step;
    if (s) location.hash = link(s.run.src, s.run.id, s.n);
  }
  function inView(e) { var r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; }
  function toggleFilter(which) {
    var cls = 'f-' + which, on = !document.body.classList.contains(cls);
    document.body.classList.toggle(cls, on);
    (which === 'errors' ? ui.fErr : ui.fSub).classList.toggle('on', on);
  }
  function toggleAll() {
    var collapse = ui.collapse.textContent === 'collapse all';
    var all = document.querySelectorAll('section.step');
    for (var i = 0; i < all.length; i++) all[i].classList.toggle('collapsed', collapse);
    ui.collapse.textContent = collapse ? 'expand all' : 'collapse all';
  }
  function toggleTheme() {
    var root = document.documentElement;
    var dark = root.classList.contains('dark') || (!root.classList.contains('light') && matchMedia('(prefers-color-scheme: dark)').matches);
    root.classList.toggle('dark', !dark);
    root.classList.toggle('light', dark);
    try { localStorage.setItem('rlm-theme', dark ? 'light' : 'dark'); } catch (e) { /* file:// without storage */ }
  }
  try { var th = localStorage.getItem('rlm-theme'); if (th) document.documentElement.classList.add(th); } catch (e) { /* ignore */ }
  document.addEventListener('keydown', function (e) {
    if (e.target && (e.target.nodeName === 'INPUT' || e.target.nodeName === 'TEXTAREA') || e.metaKey || e.ctrlKey || e.altKey) return;
    switch (e.key) {
      case 'j': stepNav(1); break;
      case 'k': stepNav(-1); break;
      case '/': e.preventDefault(); ui.search.focus(); ui.search.select(); break;
      case 'n': nextHit(1); break;
      case 'N': nextHit(-1); break;
      case 'e': toggleFilter('errors'); break;
      case 's': toggleFilter('subs'); break;
      case 't': toggleTheme(); break;
      default: return;
    }
  });

  // ---------- start ----------
  window.rlmViewer = {sources: sources, firstRenderMs: null, loadedMs: null, go: go, setQuery: function (q) { ui.search.value = q; setQuery(q); },
    stats: function () {
      return sources.map(function (s) {
        var steps = 0, lazy = 0;
        s.runs.forEach(function (r) { steps += r.steps.size; r.steps.forEach(function (st) { if (st.lazy) lazy++; }); });
        // lazy: steps whose long texts are not parsed yet
        return {name: s.name, events: s.events, runs: s.runs.size, steps: steps, problems: s.problems.length, lazy: lazy};
      });
    }};
  var phases = window.rlmViewer.phases = {start: t0};
  function ingestText(src, text) {
    var start = 0;
    while (start < text.length) {
      var nl = text.indexOf('\n', start);
      if (nl < 0) nl = text.length;
      if (nl > start) ingestLine(src, text.slice(start, nl));
      start = nl + 1;
    }
  }
  // load reads the events a file embeds: plain lines, or gzipped lines in
  // base64 (large trajectories), inflated without any request. A gzipped
  // source is streamed: base64 decoded a slice at a time, inflated and
  // parsed line by line, the page rendered as soon as the first events are
  // in and then now and then, "loading N of M events" showing until all are
  // (body data-ready is set at the first render, data-loaded at the end).
  function load(src, node) {
    var text = node.textContent;
    node.textContent = '';
    if (node.type.indexOf('gzip') < 0) { ingestText(src, text); return Promise.resolve(); }
    text = text.replace(/\s+/g, '');
    var pos = 0, SLICE = 1 << 20; // base64 characters per slice: a multiple of 4
    var bytes = new ReadableStream({pull: function (ctl) {
      if (pos >= text.length) { text = ''; ctl.close(); return; }
      var bin = atob(text.slice(pos, pos + SLICE)), b = new Uint8Array(bin.length);
      pos += SLICE;
      for (var i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
      ctl.enqueue(b);
    }});
    var reader = bytes.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream()).getReader();
    var parts = [], worked = performance.now();
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) {
          if (parts.length) ingestLine(src, parts.join(''));
          phases.inflated = performance.now();
          return;
        }
        // Only the complete lines: a long line spans chunks until its end.
        var chunk = r.value, nl = chunk.lastIndexOf('\n');
        if (nl < 0) { parts.push(chunk); return pump(); }
        parts.push(chunk.slice(0, nl));
        ingestText(src, parts.join(''));
        parts = nl + 1 < chunk.length ? [chunk.slice(nl + 1)] : [];
        if (!state.rendered) {
          // The first events: render them before going on.
          return new Promise(function (done) { renderSoon(); requestAnimationFrame(function () { setTimeout(done, 0); }); }).then(pump);
        }
        if (performance.now() - worked < 50) return pump();
        // Let the page paint and answer now and then.
        renderSoon();
        return new Promise(function (done) { setTimeout(done, 0); }).then(function () { worked = performance.now(); return pump(); });
      });
    }
    return pump();
  }
  // renderSoon updates the page while sources load: at once the first
  // time, then only the loading note (at most every 300 ms) and the whole
  // page once a second (each update rebuilds the side tree and header).
  var lastNote = 0, lastLoadUpdate = 0;
  function renderSoon() {
    var now = performance.now();
    if (!state.rendered) { lastNote = lastLoadUpdate = now; scheduleUpdate(); return; }
    if (now - lastLoadUpdate >= 1000) { lastNote = lastLoadUpdate = now; scheduleUpdate(); return; }
    if (now - lastNote >= 300) { lastNote = now; loadingNote(); }
  }
  function loadingNote() {
    if (!ui.loading) return;
    if (!state.loading) { ui.loading.textContent = ''; return; }
    var done = 0;
    sources.forEach(function (s) { done += s.events; });
    ui.loading.textContent = 'loading ' + fmtN(done) + ' of ' + fmtN(state.loading.total) + ' events…';
  }
  state.loading = {total: 0};
  var loads = [];
  (CFG.sources || []).forEach(function (meta, i) {
    var src = newSource(i, meta);
    sources.push(src);
    var node = document.getElementById('rlm-src-' + i);
    if (node) {
      state.loading.total += (meta.events || 0) + (meta.bad_lines || 0) + (meta.truncated ? 1 : 0);
      loads.push(load(src, node));
    }
  });
  phases.read = performance.now();
  Promise.all(loads).then(start, function (e) {
    document.getElementById('app').textContent = 'rlm view: cannot read the embedded trajectory: ' + e;
    throw e;
  });
  // streamWithToken reads a server-sent events stream with fetch, which
  // (unlike EventSource) can send the Authorization header; it reconnects
  // with Last-Event-ID until the stream's "end" event.
  function streamWithToken(url, token, onEvent, onEnd) {
    var last = null, ended = false, failures = 0;
    function fail(msg, retry) {
      if (!retry || ++failures > 5) { state.live = null; state.liveError = msg; scheduleUpdate(); return; }
      setTimeout(connect, 500 * failures);
    }
    function dispatch(block) {
      var name = 'message', data = [], id = null;
      block.split(/\r\n|\r|\n/).forEach(function (line) {
        if (!line || line.charAt(0) === ':') return;
        var c = line.indexOf(':'), f = c < 0 ? line : line.slice(0, c), v = c < 0 ? '' : line.slice(c + 1);
        if (v.charAt(0) === ' ') v = v.slice(1);
        if (f === 'event') name = v; else if (f === 'data') data.push(v); else if (f === 'id') id = v;
      });
      if (id != null) last = id;
      if (name === 'end') { ended = true; onEnd(); return; }
      if (data.length && (name === 'message' || name === 'trajectory')) onEvent({data: data.join('\n'), lastEventId: id == null ? '' : id});
    }
    function connect() {
      var headers = {'Authorization': 'Bearer ' + token, 'Accept': 'text/event-stream'};
      if (last != null) headers['Last-Event-ID'] = last;
      fetch(url, {headers: headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer'}).then(function (resp) {
        if (!resp.ok) {
          fail('the live event stream answered ' + resp.status + (resp.status === 401 ? ': the token in the address (#token=…) is missing or wrong' : ''), resp.status >= 500);
          return;
        }
        failures = 0;
        var reader = resp.body.pipeThrough(new TextDecoderStream()).getReader(), buf = '';
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) { if (!ended) fail('the live event stream ended early', true); return; }
            buf += r.value;
            var m;
            while ((m = /\r\n\r\n|\n\n|\r\r/.exec(buf))) {
              var block = buf.slice(0, m.index);
              buf = buf.slice(m.index + m[0].length);
              dispatch(block);
              if (ended) { reader.cancel(); return; }
            }
            return pump();
          });
        }
        return pump();
      }).catch(function (e) { if (!ended) fail('the live event stream failed: ' + (e && e.message || e), true); });
    }
    connect();
  }
  function start() {
    phases.ingested = performance.now();
    var streamed = state.rendered; // rendered while loading
    state.loading = null;
    window.rlmViewer.loadedMs = performance.now(); // since the navigation started
    document.body.setAttribute('data-loaded', '1');
    // A link to a step that had not arrived at the first render.
    if (streamed && location.hash) requestAnimationFrame(function () { go(location.hash, true); });
    if (CFG.events_url) {
      if (!sources.length) sources.push(newSource(0, {name: CFG.title || 'live run'}));
      var src = sources[0], seen = -1;
      state.live = 'connecting';
      // Events come unnamed or named "trajectory" (rlm serve), one
      // trajectory line each; ids let a reconnection skip what was seen.
      var onEvent = function (m) {
        var id = parseInt(m.lastEventId, 10);
        if (!isNaN(id)) { if (id <= seen) return; seen = id; }
        ingestLine(src, m.data);
        scheduleUpdate();
      };
      if (TOKEN != null) {
        streamWithToken(CFG.events_url, TOKEN, onEvent, function () { state.live = null; scheduleUpdate(); });
        update();
        phases.updated = performance.now();
        return;
      }
      var es = new EventSource(CFG.events_url);
      es.onmessage = onEvent;
      es.addEventListener('trajectory', onEvent);
      es.addEventListener('end', function () { state.live = null; es.close(); scheduleUpdate(); });
      es.onerror = function () {
        if (src.ended) { es.close(); state.live = null; scheduleUpdate(); return; }
        if (es.readyState === EventSource.CLOSED) { // refused (e.g. 401), not a dropped connection
          state.live = null;
          state.liveError = 'the live event stream refused the connection; if the server wants a bearer token, open this page as …/view#token=TOKEN';
          scheduleUpdate();
        }
      };
    }
    update();
    phases.updated = performance.now();
  }
})();
