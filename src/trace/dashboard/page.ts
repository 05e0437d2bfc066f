/**
 * The live pod creation dashboard's page (`k8ts dashboard`): one self-contained HTML
 * document — no framework, no CDN — that follows `/events` (Server-Sent Events) and shows
 * the components as the lanes of docs/pod-creation.md's sequence diagram with each pod
 * under the component of its latest step, a row per pod (phase, current step, total), the
 * selected pod's waterfall, p50/p99 per step over the recent pods, and the stuck pods with
 * why.
 */

/** The page's HTML. */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>k8ts — pods being born</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:0;background:#0f1419;color:#d8dee9}
header{padding:10px 16px;background:#1b2430;display:flex;gap:16px;align-items:center}
h1{font-size:16px;margin:0}h2{font-size:13px;margin:14px 0 6px;color:#8fbcbb;text-transform:uppercase;letter-spacing:.05em}
main{padding:0 16px 16px;display:grid;grid-template-columns:1.2fr 1fr;gap:16px}
#lanes{display:grid;grid-template-columns:repeat(7,1fr);gap:6px;grid-column:1/3}
.lane{background:#1b2430;border-radius:6px;min-height:70px;padding:6px}
.lane b{display:block;color:#88c0d0;margin-bottom:4px}
.chip{display:inline-block;background:#3b4252;border-radius:10px;padding:1px 8px;margin:2px;font-size:11px}
.chip.stuck{background:#bf616a}.chip.running{background:#4c7a4c}
table{border-collapse:collapse;width:100%}td,th{padding:3px 6px;text-align:left;border-bottom:1px solid #2e3440;white-space:nowrap}
tr.pod{cursor:pointer}tr.pod:hover,tr.sel{background:#2e3440}
.Running{color:#a3be8c}.Stuck{color:#bf616a}.Scheduling,.Starting{color:#ebcb8b}
.wf{display:grid;grid-template-columns:22px 260px 80px 70px 1fr;gap:1px 6px;font-size:12px}
.bar{position:relative;height:12px;background:#1b2430}.bar i{position:absolute;top:0;height:12px;background:#5e81ac;min-width:2px}
.bar i.f{background:#bf616a}
.stuck-item{background:#3b2228;border-left:3px solid #bf616a;padding:6px;margin:4px 0}
#status{color:#81a1c1}
</style></head>
<body><header><h1>k8ts — pods being born</h1><span id="status">connecting…</span></header>
<main>
<section style="grid-column:1/3"><h2>Components (docs/pod-creation.md)</h2><div id="lanes"></div></section>
<section><h2>Pods</h2><table><thead><tr><th>Pod</th><th>Phase</th><th>Step</th><th>Steps</th><th>Total</th></tr></thead><tbody id="pods"></tbody></table>
<h2>Stuck pods</h2><div id="stuck"><i>none</i></div></section>
<section><h2>Waterfall <span id="wfname"></span></h2><div id="waterfall" class="wf"></div>
<h2>Step latency over recent pods</h2><table><thead><tr><th>Step</th><th>#</th><th>n</th><th>p50</th><th>p99</th></tr></thead><tbody id="stats"></tbody></table></section>
</main>
<script>
const LANES=['kubectl','apiserver','storage','scheduler','kubelet','cri','cni'];
const traces=new Map(), stuck=new Map(); let selected=null;
const fmt=ms=>ms==null?'':ms<1?ms.toFixed(2)+'ms':ms<1000?ms.toFixed(ms<10?1:0)+'ms':(ms/1000).toFixed(2)+'s';
const key=t=>t.metadata.namespace+'/'+t.metadata.name;
const esc=s=>String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function path(t){return t.status.steps.filter(s=>!s.detail)}
function render(){
  const lanes=Object.fromEntries(LANES.map(l=>[l,[]]));
  const rows=[];
  for(const t of [...traces.values()].sort((a,b)=>key(a)<key(b)?-1:1)){
    const p=path(t), last=p[p.length-1]||{}, k=key(t), ph=t.status.phase;
    (lanes[last.component]||lanes.apiserver).push('<span class="chip '+(ph==='Stuck'?'stuck':ph==='Running'?'running':'')+'">'+esc(t.metadata.name)+'</span>');
    rows.push('<tr class="pod'+(k===selected?' sel':'')+'" data-pod="'+esc(k)+'"><td>'+esc(k)+'</td><td class="phase '+ph+'">'+ph+'</td><td class="step">'+(last.seedStep||'')+' '+esc(last.name||'')+'</td><td class="nsteps">'+p.length+'</td><td>'+fmt(t.status.summary.runningMilliseconds??t.status.summary.totalMilliseconds)+'</td></tr>');
  }
  document.getElementById('lanes').innerHTML=LANES.map(l=>'<div class="lane" data-lane="'+l+'"><b>'+l+'</b>'+lanes[l].join('')+'</div>').join('');
  document.getElementById('pods').innerHTML=rows.join('');
  for(const tr of document.querySelectorAll('tr.pod'))tr.onclick=()=>{selected=tr.dataset.pod;render()};
  const st=[...stuck.entries()];
  document.getElementById('stuck').innerHTML=st.length?st.map(([k,e])=>'<div class="stuck-item" data-pod="'+esc(k)+'"><b>'+esc(k)+'</b> — step '+e.step+': '+esc(e.title)+'<br>'+esc(e.reason)+': '+esc(e.message)+(e.event?'<br><small>'+esc(e.event.type+' '+e.event.reason+' (x'+e.event.count+'): '+e.event.message)+'</small>':'')+'</div>').join(''):'<i>none</i>';
  renderWaterfall(); renderStats();
}
function renderWaterfall(){
  const t=selected&&traces.get(selected), el=document.getElementById('waterfall');
  document.getElementById('wfname').textContent=selected||'(click a pod)';
  if(!t){el.innerHTML='';return}
  const steps=path(t), total=Math.max(1,...steps.map(s=>s.offsetMilliseconds+s.durationMilliseconds));
  el.innerHTML=steps.map(s=>'<span>'+s.seedStep+'</span><span class="wfstep">'+esc(s.name+(s.target?' '+s.target:''))+'</span><span>'+s.component+'</span><span>'+fmt(s.durationMilliseconds)+'</span><span class="bar"><i class="'+(s.failure?'f':'')+'" style="left:'+(s.offsetMilliseconds/total*100)+'%;width:'+(s.durationMilliseconds/total*100)+'%"></i></span>').join('');
}
function pct(a,q){const s=[...a].sort((x,y)=>x-y);return s[Math.min(s.length-1,Math.floor(q*(s.length-1)+.5))]}
function renderStats(){
  const by=new Map();
  for(const t of traces.values())for(const s of path(t)){if(!by.has(s.name))by.set(s.name,{seed:s.seedStep,v:[]});by.get(s.name).v.push(s.durationMilliseconds)}
  document.getElementById('stats').innerHTML=[...by.entries()].sort((a,b)=>a[1].seed-b[1].seed).map(([n,x])=>'<tr data-step="'+esc(n)+'"><td>'+esc(n)+'</td><td>'+x.seed+'</td><td>'+x.v.length+'</td><td>'+fmt(pct(x.v,.5))+'</td><td>'+fmt(pct(x.v,.99))+'</td></tr>').join('');
}
const es=new EventSource('events');
es.addEventListener('trace',e=>{const m=JSON.parse(e.data);traces.set(key(m.trace),m.trace);if(m.stuck)stuck.set(key(m.trace),m.stuck);else stuck.delete(key(m.trace));render()});
es.addEventListener('deleted',e=>{const k=JSON.parse(e.data).key;traces.delete(k);stuck.delete(k);if(selected===k)selected=null;render()});
es.onopen=()=>{document.getElementById('status').textContent='live'};
es.onerror=()=>{document.getElementById('status').textContent='reconnecting…'};
</script></body></html>
`;
}
