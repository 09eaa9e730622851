// ibscan's HTML report in a real browser (Debian's chromium, headless, through
// puppeteer-core): it loads with no console error and no request beyond the
// file itself, search finds nodes, findings highlight their cable, the map's
// tiers are in order, hostile strings stay text, and the 2,900-node report
// opens in a few seconds. tests/browser/run.sh makes the reports first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const REPORTS = process.env.REPORTS;
const ARTEFACTS = process.env.ARTEFACTS;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// Seconds within which the 2,900-node report must be ready ("opens in a few seconds").
const LARGE_OPEN_S = Number(process.env.LARGE_OPEN_S || 5);

let browser;

before(async () => {
	assert.ok(REPORTS, 'REPORTS is not set: run tests/browser/run.sh');
	browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		// Chromium refuses to start its sandbox as root, and CI runs as root.
		// The pages are local files this test made, whose Content-Security-Policy
		// allows no network and no script but their own, so the test runs
		// without the sandbox there; as another user the sandbox stays on.
		args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
	});
});

after(async () => {
	if (browser)
		await browser.close();
});

const hex = (g) => String(g).toLowerCase().replace(/^0x/, '').padStart(16, '0');
const topology = (name) => JSON.parse(fs.readFileSync(path.join(REPORTS, name + '.json'), 'utf8'));

// Before the page's script runs: every setTimeout held until window.__release() (the page
// defers its documents' inflating and parsing to timeouts after the first paint).
function holdTimeouts() {
	const orig = window.setTimeout.bind(window), held = [];
	window.setTimeout = (f, ms, ...a) => {
		held.push([f, ms, a]);
		return 0;
	};
	window.__release = () => {
		window.setTimeout = orig;
		held.forEach(([f, ms, a]) => orig(f, ms, ...a));
	};
}

// Open a report; every request but the page's own is recorded and refused. With hold, the
// page's timeouts are held (holdTimeouts) and the open waits only for its map to answer.
async function open(name, { hold = false, interactive = hold } = {}) {
	const file = path.join(REPORTS, name + '.html');
	const url = 'file://' + file;
	const page = await browser.newPage();
	const r = { page, errors: [], requests: [], dialogs: [] };
	await page.setViewport({ width: 1400, height: 1000 });
	page.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warn')
			r.errors.push(m.type() + ': ' + m.text());
	});
	page.on('pageerror', (e) => r.errors.push('pageerror: ' + e.message));
	page.on('dialog', (d) => {
		r.dialogs.push(d.message());
		d.dismiss();
	});
	await page.setRequestInterception(true);
	page.on('request', (q) => {
		if (q.url() === url && q.isNavigationRequest()) {
			q.continue();
		} else {
			r.requests.push(q.url());
			q.abort();
		}
	});
	if (hold)
		await page.evaluateOnNewDocument(holdTimeouts);
	const t0 = Date.now();
	r.t0 = t0;
	await page.goto(url, { waitUntil: interactive ? 'domcontentloaded' : 'load', timeout: 60000 });
	await page.waitForFunction((i) => window.ibscanReport && (i ? window.ibscanReport.interactive : window.ibscanReport.ready),
		{ timeout: 60000 }, interactive);
	r.ms = Date.now() - t0;
	return r;
}

async function shot(page, name) {
	if (!ARTEFACTS)
		return;
	fs.mkdirSync(ARTEFACTS, { recursive: true });
	await page.screenshot({ path: path.join(ARTEFACTS, name + '.png'), fullPage: true });
}

// Type a query into the search box and take the first result (Enter).
async function find(page, q) {
	// Its last key typed as a person would; the rest pasted (typing is one round trip a key).
	await page.$eval('#search', (e, v) => {
		e.value = v;
		e.dispatchEvent(new Event('input'));
	}, q.slice(0, -1));
	await page.type('#search', q.slice(-1));
	await page.keyboard.press('Enter');
	return page.evaluate(() => ({
		title: document.querySelector('#details h2') && document.querySelector('#details h2').textContent,
		hl: [...document.querySelectorAll('#map .ibs-hl')].map((e) => e.id),
	}));
}

// The map element(s) that stand for node n: its own, or its leaf's host group.
function mapIds(n) {
	const ids = ['n-' + hex(n.guid)];
	for (const p of n.ports || [])
		if (p.peer)
			ids.push('g-' + hex(p.peer.guid));
	return ids;
}

function clean(r) {
	assert.deepEqual(r.errors, [], 'console errors');
	assert.deepEqual(r.requests, [], 'requests beyond the page itself');
	assert.deepEqual(r.dialogs, [], 'dialogs opened');
}

test('the page loads with no console error and no request, and says what it shows', async () => {
	const r = await open('degraded');
	clean(r);
	const s = await r.page.evaluate(() => ({
		summary: document.querySelector('#summary').textContent,
		svg: !!document.querySelector('#map svg'),
		findings: document.querySelectorAll('#findings tbody tr').length,
		title: document.title,
	}));
	const t = topology('degraded');
	assert.ok(s.svg, 'the map is in the page');
	assert.match(s.summary, new RegExp(String(t.summary.nodes) + '\\s*Nodes'));
	assert.match(s.summary, /WARNING/);
	assert.match(s.summary, /2026-01-01 00:00:00 UTC from the capture .*degraded\.cap/);
	assert.match(s.summary, new RegExp(t.sm.sms[0].name + ' \\(LID ' + t.sm.sms[0].lid + '\\)'));
	assert.equal(s.findings, 2);
	assert.match(s.title, /14 nodes, WARNING/);
	await shot(r.page, 'report-loaded');
	await r.page.close();
});

test('search finds a node by name, node GUID, port GUID and LID, and highlights it', async () => {
	const r = await open('degraded');
	const t = topology('degraded');
	const sw = t.nodes.find((n) => n.type === 'switch' && n.name === 'spine02');
	const ca = t.nodes.find((n) => n.type === 'ca' && n.name.startsWith('node0005'));
	const caPort = ca.ports.find((p) => p.port === 1);
	assert.notEqual(caPort.guid, ca.guid, 'the fixture has distinct port and node GUIDs');
	const cases = [
		[sw, 'spine02'],
		[sw, sw.guid],
		[sw, hex(sw.guid).replace(/^0+/, '')],
		[sw, String(sw.lid)],
		[ca, 'NODE0005'],
		[ca, ca.guid],
		[ca, caPort.guid],
		[ca, String(caPort.lid)],
	];
	for (const [n, q] of cases) {
		const got = await find(r.page, q);
		assert.equal(got.title, n.name, `search '${q}'`);
		assert.equal(got.hl.length, 1, `search '${q}': one element highlighted`);
		assert.ok(mapIds(n).includes(got.hl[0]), `search '${q}' highlighted ${got.hl[0]}, not ${n.name}`);
	}
	await shot(r.page, 'report-search');
	clean(r);
	await r.page.close();
});

// The map answers before the documents are parsed: with the page's timeouts held (its data
// work waits in them), a wheel zooms the map while the search says it is indexing, and a
// query typed then is answered once the documents are in, Enter taking its first result.
test('the map zooms while the search is indexing, and the search answers after', async () => {
	const r = await open('degraded', { hold: true });
	const t = topology('degraded');
	const sw = t.nodes.find((n) => n.type === 'switch' && n.name === 'spine02');
	const state = () => r.page.evaluate(() => ({
		ready: window.ibscanReport.ready,
		indexing: document.querySelector('#search').classList.contains('indexing'),
		busy: document.querySelector('#search').getAttribute('aria-busy'),
		placeholder: document.querySelector('#search').placeholder,
		results: [...document.querySelectorAll('#results li')].map((e) => e.textContent),
		title: document.querySelector('#details h2') && document.querySelector('#details h2').textContent,
		transform: document.querySelector('#map svg').style.transform,
	}));
	let s = await state();
	assert.equal(s.ready, false, 'the documents are not parsed yet');
	assert.ok(s.indexing && s.busy === 'true', 'the search says it is indexing');
	assert.match(s.placeholder, /Indexing/);
	assert.ok(s.transform, 'the map has its view');
	await r.page.mouse.move(400, 500);
	await r.page.mouse.wheel({ deltaY: -300 });
	await r.page.waitForFunction((b) => document.querySelector('#map svg').style.transform !== b, { timeout: 10000 }, s.transform);
	await r.page.$eval('#search', (e, v) => {
		e.value = v;
		e.dispatchEvent(new Event('input'));
	}, 'spine0');
	await r.page.type('#search', '2');
	await r.page.keyboard.press('Enter');
	s = await state();
	assert.equal(s.ready, false, 'still not parsed');
	assert.deepEqual(s.results, ['Indexing the fabric\u2026'], 'the results say the search is indexing');
	assert.equal(s.title, null, 'nothing selected yet');
	await r.page.evaluate(() => window.__release());
	await r.page.waitForFunction(() => window.ibscanReport.ready, { timeout: 60000 });
	s = await state();
	assert.ok(!s.indexing && s.busy === null, 'the search is no longer indexing');
	assert.equal(s.title, sw.name, 'the query typed while indexing was answered, Enter took its first result');
	const hl = await r.page.evaluate(() => [...document.querySelectorAll('#map .ibs-hl')].map((e) => e.id));
	assert.deepEqual(hl, ['n-' + hex(sw.guid)]);
	// The tooltips came with the documents: shown as the element's title when first pointed at.
	const tip = await r.page.evaluate((id) => {
		const g = document.getElementById(id);
		g.querySelector('polygon, ellipse, path').dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
		const e = g.querySelector(':scope > title');
		return e && e.textContent;
	}, 'n-' + hex(sw.guid));
	assert.ok(tip && tip.includes(sw.guid), `spine02's tooltip: ${tip}`);
	clean(r);
	await r.page.close();
});

// report --routing: a click on a credit loop or a forwarding loop highlights every cable of
// the cycle, known here from the fabric files: ring4's four ring cables (OpenSM's minhop
// loops round the ring), and the loop planted in fattree2-small's tables for a host of
// leaf03: leaf01 port 19 to spine01, spine01 port 3 to leaf02, leaf02 port 21 to spine02,
// spine02 port 1 back to leaf01. The map is the heat map: its busiest edge at the dark end.
test('report --routing: clicking a loop finding highlights every cable of the loop', async () => {
	const cases = [
		['ring4-minhop', 'route.credit_loop', [['SwA', 2], ['SwB', 2], ['SwC', 2], ['SwD', 2]]],
		['fattree2-small-loop', 'route.loop',
			[['leaf01', 19], ['spine01', 3], ['leaf02', 21], ['spine02', 1]]],
	];
	for (const [name, check, cables] of cases) {
		const r = await open(name);
		const t = topology(name);
		const d = await r.page.evaluate(() => ({
			findings: JSON.parse(document.getElementById('ibs-health').textContent).findings,
			ports: JSON.parse(document.getElementById('ibs-map').textContent).ports,
			hot: document.querySelectorAll('#map g.edge path[stroke="#081d58"]').length,
			legend: document.getElementById('legend').textContent,
		}));
		const i = d.findings.findIndex((f) => f.check === check);
		assert.ok(i >= 0, `${name}: no ${check} finding`);
		// Each cable's element, by the map's own list of which element each cabled port is drawn as.
		const want = cables.map(([sw, port]) => {
			const n = t.nodes.find((x) => x.type === 'switch' && (x.name === sw || x.description.includes(sw + ':')));
			assert.ok(n, `${name}: no switch ${sw}`);
			const p = d.ports.find((x) => x.index === n.index && x.port === port);
			assert.ok(p, `${name}: ${sw} port ${port} is not on the map`);
			return p.id;
		});
		assert.equal(new Set(want).size, cables.length, `${name}: the cycle's cables are distinct edges`);
		const rows = await r.page.$$('#findings tbody tr');
		await rows[i].click();
		const hl = await r.page.evaluate(() => [...document.querySelectorAll('#map .ibs-hl')].map((e) => e.id));
		assert.deepEqual([...hl].sort(), [...want].sort(), `${name}: ${d.findings[i].message}`);
		// Another finding's click takes the cycle's highlight away.
		const other = d.findings.findIndex((f) => f.check !== check && f.node);
		if (other >= 0) {
			await rows[other].click();
			const hl2 = await r.page.evaluate(() => [...document.querySelectorAll('#map .ibs-hl')].map((e) => e.id));
			assert.ok(hl2.length <= 1, `${name}: after another finding, ${hl2}`);
		}
		assert.ok(d.hot >= 1, `${name}: no edge at the top of the heat scale`);
		assert.match(d.legend, /host-to-host routes/);
		await rows[i].click();
		await shot(r.page, 'report-' + name);
		clean(r);
		await r.page.close();
	}
});

test('clicking a finding highlights its cable', async () => {
	const r = await open('degraded');
	const rows = await r.page.$$('#findings tbody tr');
	assert.equal(rows.length, 2);
	const findings = await r.page.evaluate(() => JSON.parse(document.getElementById('ibs-health').textContent).findings);
	for (let i = 0; i < rows.length; i++) {
		const f = findings[i];
		let [a, pa, b, pb] = [hex(f.node.guid), f.node.port, hex(f.peer.guid), f.peer.port];
		if (a > b)
			[a, pa, b, pb] = [b, pb, a, pa];
		await rows[i].click();
		const hl = await r.page.evaluate(() => [...document.querySelectorAll('#map .ibs-hl')].map((e) => e.id));
		// A cable with a problem is drawn on its own, named by both ends and ports.
		assert.deepEqual(hl, [`e-${a}-${pa}-${b}-${pb}`], `finding ${i}: ${f.message}`);
		const sel = await r.page.$$eval('#findings tbody tr.sel', (v) => v.length);
		assert.equal(sel, 1);
	}
	await shot(r.page, 'report-finding');
	clean(r);
	await r.page.close();
});

// Tiers from the topology: leaves are switches with a CA; each further tier
// is the switches next to the one below. Their centres on the page must be
// in order: every spine above every leaf, every leaf above every host.
async function tiersInOrder(name) {
	const r = await open(name);
	const t = topology(name);
	const byGuid = new Map(t.nodes.map((n) => [hex(n.guid), n]));
	const tier = new Map();
	for (const n of t.nodes)
		if (n.type !== 'switch')
			tier.set(hex(n.guid), 0);
	for (let level = 1, grew = true; grew; level++) {
		grew = false;
		for (const n of t.nodes) {
			const g = hex(n.guid);
			if (tier.has(g))
				continue;
			if (n.ports.some((p) => p.peer && tier.get(hex(p.peer.guid)) === level - 1)) {
				tier.set(g, level);
				grew = true;
			}
		}
	}
	const ys = await r.page.evaluate(() => {
		const out = {};
		document.querySelectorAll('#map g.node, #map g.cluster').forEach((e) => {
			const b = e.getBoundingClientRect();
			out[e.id] = b.top + b.height / 2;
		});
		return out;
	});
	const rows = [];
	for (const [id, y] of Object.entries(ys)) {
		let m = /^n-([0-9a-f]{16})$/.exec(id), level;
		if (m && tier.has(m[1]))
			level = tier.get(m[1]);
		else if ((m = /^g-([0-9a-f]{16})$/.exec(id)) && byGuid.has(m[1]))
			level = 0; // a leaf's host group
		else
			continue;
		(rows[level] = rows[level] || []).push(y);
	}
	assert.ok(rows.length >= 3, `${name}: hosts, leaves and spines drawn (${rows.length} tiers found)`);
	for (let l = 1; l < rows.length; l++) {
		assert.ok(rows[l] && rows[l - 1], `${name}: tier ${l} or ${l - 1} has no element`);
		const lowest = Math.max(...rows[l]), highestBelow = Math.min(...rows[l - 1]);
		assert.ok(lowest < highestBelow, `${name}: tier ${l} (lowest at y=${lowest}) is not above tier ${l - 1} (highest at y=${highestBelow})`);
	}
	clean(r);
	return r;
}

test('the map draws spines above leaves above hosts', async () => {
	const r = await tiersInOrder('small');
	await shot(r.page, 'report-small');
	await r.page.close();
});

test('hostile names and descriptions show as text and run nothing', async () => {
	const r = await open('hostile');
	const t = topology('hostile');
	const hostile = t.nodes.filter((n) => /[<>&"\\\u2028]|\\x/.test(n.name));
	assert.ok(hostile.length >= 6, `the fixture has hostile names (${hostile.length})`);
	for (const n of hostile) {
		const got = await find(r.page, n.guid);
		assert.equal(got.title, n.name, `node ${n.guid}: its name shown as text`);
	}
	// Search by a name holding markup too.
	const scripted = hostile.find((n) => n.name.startsWith('</script>'));
	assert.ok(scripted, 'a name that ends the data element');
	assert.equal((await find(r.page, scripted.name)).title, scripted.name);
	const dom = await r.page.evaluate(() => ({
		pwned: window.__pwned,
		scripts: [...document.scripts].map((e) => e.id || e.type || 'script'),
		imgs: document.images.length,
		handlers: [...document.querySelectorAll('*')].filter((e) =>
			[...e.attributes].some((a) => /^on/i.test(a.name))).length,
		findings: document.querySelector('#findings').textContent,
	}));
	assert.equal(dom.pwned, undefined, 'no injected script ran');
	assert.deepEqual(dom.scripts, ['ibs-meta', 'ibs-topology', 'ibs-health', 'ibs-counters', 'ibs-map', 'ibs-tips', 'script'],
		'the data elements and the page script, nothing injected');
	assert.equal(dom.imgs, 0, 'no injected image');
	assert.equal(dom.handlers, 0, 'no element with an event handler attribute');
	// Everything the page holds was read intact: its topology is the JSON view's.
	const embedded = await r.page.evaluate(() => JSON.parse(document.getElementById('ibs-topology').textContent));
	assert.deepEqual(embedded, t);
	await shot(r.page, 'report-hostile');
	clean(r);
	await r.page.close();
});

// Chromium opening the bare SVG of the same drawing: what the map alone costs on this machine now.
async function openBare(file) {
	const page = await browser.newPage();
	await page.setViewport({ width: 1400, height: 1000 });
	const t0 = Date.now();
	await page.goto('file://' + file, { waitUntil: 'load', timeout: 120000 });
	const ms = Date.now() - t0;
	await page.close();
	return ms;
}

test('the 2,900-node report opens in a few seconds', { skip: !fs.existsSync(path.join(REPORTS || '', 'large.html')) && 'BROWSER_LARGE=0' }, async () => {
	const bare = await openBare(path.join(REPORTS, 'large.svg'));
	const r = await open('large');
	const t = topology('large');
	const size = fs.statSync(path.join(REPORTS, 'large.html')).size;
	console.log(`# the ${t.nodes.length}-node report (${size} bytes) was ready in ${r.ms} ms; its map alone opens in ${bare} ms`);
	assert.ok(t.nodes.length > 2800, `the large fabric has ${t.nodes.length} nodes`);
	// A few seconds; on a machine so loaded that the map alone takes longer,
	// the page may cost at most twice what its map alone does.
	assert.ok(r.ms < LARGE_OPEN_S * 1000 || r.ms < 2 * bare,
		`ready in ${r.ms} ms: over ${LARGE_OPEN_S} s and over twice the ${bare} ms of its map alone`);
	const host = t.nodes.find((n) => n.type === 'ca' && n.lid);
	const t0 = Date.now();
	const got = await find(r.page, String(host.lid));
	const searchMs = Date.now() - t0;
	console.log(`# search by LID and show: ${searchMs} ms`);
	assert.equal(got.title, host.name);
	assert.ok(mapIds(host).includes(got.hl[0]), `search highlighted ${got.hl[0]}`);
	await shot(r.page, 'report-large');
	clean(r);
	await r.page.close();
	await tiersInOrder('large').then((x) => x.page.close());
});

// A string's FNV-1a hash: the page's documents compared with the JSON view's without moving 36 MB through the driver.
const fnv = (s) => {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++)
		h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
	return h;
};

// Issue 28: the 8,831-node fabric's page under 15 MB (it was 72 MB: every document plain JSON);
// its large documents are stored deflated and read back whole. How soon it answers is a figure
// (logged here, recorded in docs/performance.md), not a bound: no timed test.
test('the 8,831-node report is under 15 MB and its documents read back whole', { skip: !fs.existsSync(path.join(REPORTS || '', 'huge.html')) && 'BROWSER_LARGE=0' }, async () => {
	const file = path.join(REPORTS, 'huge.html');
	const size = fs.statSync(file).size;
	assert.ok(size < 15e6, `the page is ${size} bytes, over 15 MB`);
	const html = fs.readFileSync(file, 'utf8');
	assert.match(html, /<script type="application\/octet-stream" id="ibs-topology" data-encoding="deflate-base64">/,
		'the topology is stored deflated');
	const r = await open('huge');
	const t = topology('huge');
	assert.equal(t.nodes.length, 8831);
	const got = await r.page.evaluate(() => {
		const hash = (s) => { // fnv, above (the page's Content-Security-Policy allows no eval)
			let h = 0x811c9dc5;
			for (let i = 0; i < s.length; i++)
				h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
			return h;
		};
		const d = window.ibscanReport.doc('ibs-topology'), c = window.ibscanReport.doc('ibs-counters');
		return { nodes: d.nodes.length, hash: hash(JSON.stringify(d)), ports: c.ports, counted: c.ports_counters.length };
	});
	assert.equal(got.nodes, 8831);
	assert.equal(got.hash, fnv(JSON.stringify(t)), 'the page\'s topology is the JSON view\'s');
	assert.ok(got.ports > 46000 && got.counted === got.ports, `counters of ${got.counted} of ${got.ports} ports`);
	const timing = await r.page.evaluate(() => window.ibscanReport.timing);
	const host = t.nodes.find((n) => n.type === 'ca' && n.lid);
	const found = await find(r.page, String(host.lid));
	assert.equal(found.title, host.name, 'the search answers');
	await shot(r.page, 'report-huge');
	clean(r);
	await r.page.close();
	// Again, a wheel as soon as the map answers: how long from navigation until it zoomed, and
	// whether the documents were still being read then (a figure, never a bound).
	const q = await open('huge', { hold: false, interactive: true });
	const before = await q.page.$eval('#map svg', (e) => e.style.transform);
	await q.page.mouse.move(700, 500);
	await q.page.mouse.wheel({ deltaY: -200 });
	await q.page.waitForFunction((b) => document.querySelector('#map svg').style.transform !== b, {}, before);
	const zoomMs = Date.now() - q.t0;
	const then = await q.page.evaluate(() => window.ibscanReport.ready);
	await q.page.waitForFunction(() => window.ibscanReport.ready, { timeout: 60000 });
	const t2 = await q.page.evaluate(() => window.ibscanReport.timing);
	console.log(`# the ${t.nodes.length}-node report (${size} bytes): map interactive at ${Math.round(timing.interactive)} ms, ` +
		`documents parsed at ${Math.round(timing.ready)} ms (page clock); a wheel at the first chance zoomed it ` +
		`${zoomMs} ms from navigation (${then ? 'after' : 'before'} the documents were parsed; ` +
		`interactive ${Math.round(t2.interactive)} ms, parsed ${Math.round(t2.ready)} ms)`);
	clean(q);
	await q.page.close();
});
