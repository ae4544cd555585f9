/// The report's own style sheet and script, inline: the file needs nothing else.
///
/// The script only sorts tables and moves between sequence steps with the arrow keys;
/// everything it acts on reads without it (steps open with Enter or a click, natively).
enum ReportStyle {
  /// No request may leave the file: nothing but inline style, inline script and data: images.
  static let contentSecurityPolicy: StaticString =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

  static let css: StaticString = """
    :root{--fg:#1b1f24;--mute:#57606a;--line:#d0d7de;--soft:#f6f8fa;--err:#b3261e;--acc:#0b5cad;--t:7.5rem}
    *{box-sizing:border-box}
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff;\
    margin:0 auto;padding:0 1.5rem 3rem;max-width:80rem}
    a{color:var(--acc)}
    .skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem;z-index:9}
    h1{font-size:1.5rem;margin:1.2rem 0 .3rem}
    h2{font-size:1.3rem;border-bottom:2px solid var(--line);padding-bottom:.2rem;margin-top:2.2rem;overflow-wrap:anywhere}
    h3{font-size:1.12rem;margin:1.8rem 0 .5rem}h4{font-size:1rem;margin:1.2rem 0 .4rem}
    nav ul{padding-left:1.2rem;margin:.2rem 0}nav.sub ul{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem;padding:0;\
    list-style:none}
    code,td,.a,.frames{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
    .note{color:var(--mute);font-size:13px;margin:.2rem 0}
    ul.counts{display:flex;flex-wrap:wrap;gap:.6rem;padding:0;list-style:none;margin:.6rem 0}
    ul.counts li{border:1px solid var(--line);border-radius:6px;padding:.3rem .8rem;background:var(--soft)}
    ul.counts b{font-size:1.3rem;display:block}
    dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.4rem 0}
    dt{color:var(--mute)}dd{margin:0;overflow-wrap:anywhere}
    .table{overflow-x:auto;margin:.3rem 0 1rem}
    table{border-collapse:collapse}caption{text-align:left;font-weight:600;padding:.2rem 0}
    th,td{border:1px solid var(--line);padding:.15rem .45rem;text-align:left;vertical-align:top}
    th{background:var(--soft)}th.n,td[data-v]{text-align:right}
    th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
    th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
    .err,.a.e{color:var(--err)}.sev-high{font-weight:700}
    ul.findings li{margin:.15rem 0}
    .lanes{display:flex;justify-content:space-between;margin-left:calc(var(--t) - 1.4rem);font-weight:600;\
    position:sticky;top:0;background:#fff;z-index:1;border-bottom:1px solid var(--line)}
    ol.steps{list-style:none;margin:0;padding:0;background:\
    linear-gradient(#8c959f,#8c959f) no-repeat var(--t) 0/2px 100%,\
    linear-gradient(#8c959f,#8c959f) no-repeat calc(var(--t) + (100% - var(--t)) / 2) 0/2px 100%,\
    linear-gradient(#8c959f,#8c959f) no-repeat 100% 0/2px 100%}
    .step>details>summary,.row{display:grid;grid-template-columns:var(--t) 1fr 1fr;cursor:pointer;list-style:none}
    .step>details>summary::-webkit-details-marker{display:none}
    summary:focus-visible{outline:2px solid var(--acc);outline-offset:1px}
    .tm{font-size:12px;color:var(--mute);padding-top:.1rem}
    .tm::before{content:"\\25B8  "}details[open]>summary .tm::before{content:"\\25BE  "}
    .a{position:relative;margin:.12rem .5rem .12rem 0;padding:0 .5rem;border-bottom:1.5px solid currentColor;\
    text-align:center;overflow-wrap:anywhere;min-height:1.1em}
    .a.l{margin:.12rem 0 .12rem .5rem}.a.b{border-bottom-style:dashed}.a.e{font-weight:600}
    .a.r::after,.a.l::after{content:"";position:absolute;bottom:-5px;border:4.5px solid transparent}
    .a.r::after{right:-8px;border-left:8px solid currentColor;border-right:0}
    .a.l::after{left:-8px;border-right:8px solid currentColor;border-left:0}
    .c1{grid-column:2}.c2{grid-column:3}
    .step details>div{margin:.2rem 0 .6rem var(--t);padding:.3rem .5rem;background:var(--soft);border-left:3px solid \
    var(--line)}
    .frames td{border:0;padding:0 .5rem 0 0;white-space:pre-wrap}
    ol.calls{margin:.2rem 0;padding-left:1.5rem;font-size:12.5px;columns:16rem}
    figure.chart{display:inline-block;margin:.4rem 1.2rem 1rem 0;vertical-align:top}
    figcaption{font-size:12.5px;color:var(--mute);max-width:420px}
    svg{font:10px system-ui,sans-serif;overflow:visible}svg text{fill:#3d444d}
    .ax{stroke:#8c959f;fill:none}.grid{stroke:#e6e9ec}.k1{fill:#0b5cad}.k2{fill:#7cb7ee}.k3{fill:#bf8700}\
    .k4{fill:#8250df}.k5{fill:#1a7f37}.kx{fill:var(--err)}.ln{fill:none;stroke:#0b5cad;stroke-width:1.5}
    .dot{fill:#0b5cad;fill-opacity:.55}
    @media print{body{max-width:none;padding:0;font-size:11px}.skip,nav.sub,th button::after{display:none}\
    .lanes{position:static}.step,figure.chart,tr{break-inside:avoid}h2,h3,h4{break-after:avoid}\
    a{color:inherit;text-decoration:none}.capture+.capture>h2{break-before:page}}
    @page{margin:1.5cm}
    """

  static let script: StaticString = """
    document.querySelectorAll('table.sortable').forEach(function(t){\
    t.querySelectorAll('th button').forEach(function(b,i){b.addEventListener('click',function(){\
    var th=b.parentNode,up=th.getAttribute('aria-sort')!=='ascending',n=th.classList.contains('n');\
    t.querySelectorAll('th').forEach(function(h){h.setAttribute('aria-sort','none')});\
    th.setAttribute('aria-sort',up?'ascending':'descending');\
    var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\
    function key(r){var c=r.cells[i];if(!c)return n?-Infinity:'';return n?(c.dataset.v===undefined?-Infinity:\
    +c.dataset.v):c.textContent}\
    rows.sort(function(x,y){var a=key(x),b=key(y),d=n?(a>b)-(a<b):String(a).localeCompare(String(b),undefined,\
    {numeric:true});return up?d:-d});rows.forEach(function(r){body.appendChild(r)})})})});
    document.addEventListener('keydown',function(e){if(e.key!=='ArrowDown'&&e.key!=='ArrowUp')return;\
    var s=e.target.closest&&e.target.closest('.steps summary');if(!s)return;\
    var all=Array.prototype.filter.call(s.closest('.seq').querySelectorAll('.steps summary'),\
    function(x){return x.offsetParent!==null}),i=all.indexOf(s)+(e.key==='ArrowDown'?1:-1);\
    if(i>=0&&i<all.length){all[i].focus();e.preventDefault()}});
    """
}
