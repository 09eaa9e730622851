/*
 * ibscan report: builds the page from the JSON documents in it (written by
 * output/report.c): summary, map pan and zoom, search, node details and
 * findings. The map pans and zooms as soon as the script runs; the
 * documents are inflated and parsed after the first paint (the 8,831-node
 * fabric's take a second or more), the search saying "indexing" meanwhile. Every string from the fabric goes into the page as text (text
 * nodes, setAttribute), never as markup.
 */
(function () {
	'use strict';

	/*
	 * A large document is stored deflated, in base64 (data-encoding, output/report.c):
	 * its text, inflated by the browser's own DecompressionStream.
	 */
	function inflate(e) {
		var bin = atob(e.textContent), u = new Uint8Array(bin.length), i;
		for (i = 0; i < bin.length; i++)
			u[i] = bin.charCodeAt(i);
		return new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('deflate'))).text();
	}


	/* What the page can do before its documents are parsed, and what it does once they are. */
	var app = { search: null, select: null, mapClick: function () {}, searchReady: function () {} };
	/* For the browser tier: when the map answered (interactive) and when the rest did (ready), ms from navigation. */
	var report = window.ibscanReport = { interactive: false, ready: false, timing: {} };

	/* el('td', {class: 'num'}, ['text', otherElement]): children as text or nodes. */
	function el(tag, attrs, kids) {
		var e = document.createElement(tag);
		Object.keys(attrs || {}).forEach(function (k) {
			if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false)
				e.setAttribute(k, String(attrs[k]));
		});
		(kids || []).forEach(function (c) {
			if (c === null || c === undefined)
				return;
			e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
		});
		return e;
	}

	function clear(e) {
		while (e.firstChild)
			e.removeChild(e.firstChild);
		return e;
	}

	/* ---- the map ---- */
	var mapDiv = document.getElementById('map');
	var svg = mapDiv.querySelector('svg');
	/*
	 * Pan and zoom move the SVG element with a CSS transform (translate, then
	 * scale, from its top left corner): the browser composites it again
	 * without laying out thousands of SVG elements, as a viewBox change would.
	 */
	var view = { s: 1, x: 0, y: 0 }, natural = null, fitScale = 1;

	function byId(id) {
		var e = document.getElementById(id);
		return e && svg && svg.contains(e) ? e : null;
	}

	function setView() {
		svg.style.transform = 'translate(' + view.x + 'px,' + view.y + 'px) scale(' + view.s + ')';
	}

	/* The whole map, centred. */
	function fit() {
		var cw = mapDiv.clientWidth || 1, ch = mapDiv.clientHeight || 1;
		fitScale = Math.min(cw / natural.w, ch / natural.h);
		view = { s: fitScale, x: (cw - natural.w * fitScale) / 2, y: (ch - natural.h * fitScale) / 2 };
		setView();
	}

	function clampScale(s) {
		return Math.min(Math.max(s, fitScale / 4), Math.max(4, fitScale));
	}

	/* Zoom by f (above 1: closer) keeping the map point under (cx, cy) in place. */
	function zoomAt(cx, cy, f) {
		var r = mapDiv.getBoundingClientRect(), px = cx - r.left, py = cy - r.top;
		var s = clampScale(view.s * f);
		view = { s: s, x: px - (px - view.x) * s / view.s, y: py - (py - view.y) * s / view.s };
		setView();
	}

	function zoomCenter(f) {
		var r = mapDiv.getBoundingClientRect();
		zoomAt(r.left + r.width / 2, r.top + r.height / 2, f);
	}

	/*
	 * Bring an element into plain view: left as it is when it is in view at
	 * a readable scale; else centred, zoomed in as far as a readable scale.
	 */
	var READABLE = 0.7;
	function focusEl(e) {
		var r = e.getBoundingClientRect(), m = mapDiv.getBoundingClientRect();
		var inside = r.left >= m.left && r.right <= m.right && r.top >= m.top && r.bottom <= m.bottom;
		if (inside && view.s >= READABLE)
			return;
		var lx = (r.left + r.width / 2 - m.left - view.x) / view.s, ly = (r.top + r.height / 2 - m.top - view.y) / view.s;
		var lw = Math.max(r.width / view.s, 1), lh = Math.max(r.height / view.s, 1);
		var s = view.s >= READABLE ? view.s : clampScale(Math.max(view.s, Math.min(1.2, m.width / (lw * 3), m.height / (lh * 3))));
		view = { s: s, x: m.width / 2 - lx * s, y: m.height / 2 - ly * s };
		setView();
	}

	var highlighted = [];

	function unhighlight() {
		highlighted.forEach(function (e) {
			e.classList.remove('ibs-hl');
		});
		highlighted = [];
	}

	function highlight(e) {
		if (!e)
			return;
		e.classList.add('ibs-hl');
		highlighted.push(e);
	}

	function initMap() {
		var r = svg.getBoundingClientRect();
		natural = { w: r.width || 1, h: r.height || 1 };
		svg.classList.add('ibs-map');
		fit();
		/*
		 * A very wide fabric fits as a thin line: open it at the height of the
		 * view instead, centred (Fit shows the whole of it).
		 */
		var hs = Math.min(1, mapDiv.clientHeight / natural.h);
		if (fitScale < hs / 3)
			view = { s: hs, x: (mapDiv.clientWidth - natural.w * hs) / 2, y: (mapDiv.clientHeight - natural.h * hs) / 2 };
		setView();
		/* A new size keeps what is at the centre (and the zoom): a printout or screenshot resizes. */
		var size = { w: mapDiv.clientWidth, h: mapDiv.clientHeight };
		window.addEventListener('resize', function () {
			var w = mapDiv.clientWidth, h = mapDiv.clientHeight;
			view = { s: view.s, x: view.x + (w - size.w) / 2, y: view.y + (h - size.h) / 2 };
			size = { w: w, h: h };
			setView();
		});

		mapDiv.addEventListener('wheel', function (ev) {
			ev.preventDefault();
			zoomAt(ev.clientX, ev.clientY, Math.exp(-ev.deltaY * (ev.deltaMode ? 0.05 : 0.0015)));
		}, { passive: false });

		var drag = null;
		mapDiv.addEventListener('pointerdown', function (ev) {
			if (ev.button !== 0)
				return;
			drag = { x: ev.clientX, y: ev.clientY, view: view, moved: false };
		});
		mapDiv.addEventListener('pointermove', function (ev) {
			if (!drag)
				return;
			var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
			if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4)
				return;
			if (!drag.moved) {
				drag.moved = true;
				mapDiv.setPointerCapture(ev.pointerId);
				mapDiv.classList.add('dragging');
			}
			view = { s: drag.view.s, x: drag.view.x + dx, y: drag.view.y + dy };
			setView();
		});
		function endDrag(ev) {
			if (!drag)
				return;
			var moved = drag.moved;
			drag = null;
			mapDiv.classList.remove('dragging');
			if (ev.type === 'pointerup' && !moved)
				app.mapClick(ev.target);
		}
		mapDiv.addEventListener('pointerup', endDrag);
		mapDiv.addEventListener('pointercancel', endDrag);
	}

	function buildToolbar() {
		var bar = document.getElementById('toolbar');
		/* Until the documents are parsed the box says so, and a query typed meanwhile is answered then. */
		var input = el('input', { type: 'search', id: 'search', placeholder: 'Indexing the fabric\u2026',
					  class: 'indexing', 'aria-busy': 'true', autocomplete: 'off',
					  'aria-label': 'Find a node by name, GUID or LID' });
		var list = el('ul', { id: 'results', role: 'listbox', hidden: 'hidden' });
		var active = -1, res = [], pendingEnter = false;
		function render() {
			clear(list);
			res.slice(0, 100).forEach(function (r, i) {
				var li = el('li', { class: i === active ? 'active' : null, role: 'option' }, [
					el('span', { class: 'why' }, [r.why]), r.node.name, ' ',
					el('span', { class: 'mono' }, [r.node.guid + (r.node.lid ? ' LID ' + r.node.lid : '')])
				]);
				li.addEventListener('mousedown', function (ev) {
					ev.preventDefault();
					choose(i);
				});
				list.appendChild(li);
			});
			if (!app.search && input.value.trim())
				list.appendChild(el('li', { class: 'indexing' }, ['Indexing the fabric\u2026']));
			else if (!res.length && input.value.trim())
				list.appendChild(el('li', null, ['No node matches.']));
			list.hidden = !input.value.trim();
		}
		function choose(i) {
			if (!res[i])
				return;
			list.hidden = true;
			app.select(res[i].node);
		}
		function answer() {
			res = app.search ? app.search(input.value) : [];
			active = res.length ? 0 : -1;
			render();
		}
		input.addEventListener('input', answer);
		app.searchReady = function () {
			input.classList.remove('indexing');
			input.removeAttribute('aria-busy');
			input.setAttribute('placeholder', 'Find a node: name, GUID or LID');
			if (input.value.trim())
				answer();
			/* Enter pressed while indexing: the first result, now. */
			if (pendingEnter && res.length)
				choose(active < 0 ? 0 : active);
			pendingEnter = false;
		};
		input.addEventListener('keydown', function (ev) {
			if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
				ev.preventDefault();
				if (res.length)
					active = (active + (ev.key === 'ArrowDown' ? 1 : res.length - 1)) % Math.min(res.length, 100);
				render();
			} else if (ev.key === 'Enter') {
				if (app.search)
					choose(active < 0 ? 0 : active);
				else
					pendingEnter = true;
			} else if (ev.key === 'Escape') {
				list.hidden = true;
			}
		});
		input.addEventListener('blur', function () {
			list.hidden = true;
		});
		bar.appendChild(input);
		bar.appendChild(list);
		if (svg) {
			[['+', 'Zoom in', function () { zoomCenter(1.5); }],
			 ['\u2212', 'Zoom out', function () { zoomCenter(1 / 1.5); }],
			 ['Fit', 'Show the whole map', fit]].forEach(function (b) {
				var btn = el('button', { type: 'button', title: b[1] }, [b[0]]);
				btn.addEventListener('click', b[2]);
				bar.appendChild(btn);
			});
			bar.appendChild(el('span', { class: 'hint' }, ['Drag to pan, wheel to zoom, click a node for details']));
		}
	}

	var details = document.getElementById('details');
	buildToolbar();
	/* The map's size is known once everything around it is laid out: the toolbar is. */
	if (svg)
		initMap();
	details.appendChild(el('p', { class: 'placeholder' }, ['Indexing the fabric\u2026']));
	document.getElementById('summary').appendChild(el('h1', null, ['ibscan report']));
	report.interactive = true;
	report.timing.interactive = performance.now();

	/* A task after the next paint: what the page shows first is painted before the data work. */
	function afterPaint(f) {
		requestAnimationFrame(function () {
			setTimeout(f, 0);
		});
	}

	var texts = {};
	afterPaint(function () {
		var stored = document.querySelectorAll('script[data-encoding="deflate-base64"]');
		Promise.all(Array.prototype.map.call(stored, function (e) {
			return inflate(e).then(function (t) {
				texts[e.id] = t;
			});
		})).then(function () {
			/* Parsed in a task of its own: a wheel or a drag waiting since is handled first. */
			setTimeout(start, 0);
		}, function (err) {
			document.getElementById('summary').textContent = 'The report\'s data could not be read: ' + err;
		});
	});

function start() {
	function doc(id) {
		var e = document.getElementById(id);
		if (!e)
			return null;
		return JSON.parse(texts[id] !== undefined ? texts[id] : e.textContent);
	}

	var meta = doc('ibs-meta');
	var topo = doc('ibs-topology');
	var health = doc('ibs-health');
	/* The counters are parsed when first shown: a large fabric's page opens sooner. */
	var ctrs = meta.counters ? undefined : null;
	/* Which map element each node and each cabled port is drawn as (output/draw.h). */
	var drawn = doc('ibs-map');
	/* report --routing: the links of each credit loop and forwarding loop (output/report_routes.c). */
	var routesDoc = doc('ibs-routes');
	/* The map's tooltips, by element id (output/report_svg.c): each shown as its element's title when first pointed at. */
	var tips = doc('ibs-tips') || {};

	/* A GUID as the map's ids spell it: 16 lowercase hex digits. */
	function hex(g) {
		var s = String(g || '').toLowerCase();
		if (s.charAt(0) === '0' && s.charAt(1) === 'x')
			s = s.slice(2);
		return s.length < 16 ? '0000000000000000'.slice(s.length) + s : s;
	}

	function fmtNum(v) {
		return v === null || v === undefined ? '-' : Number(v).toLocaleString('en-US');
	}

	/* ---- the model, indexed ---- */
	var nodes = topo.nodes;
	var byGuid = {};   /* hex GUID -> [node] (a duplicate GUID is two nodes) */
	var byPortGuid = {};
	var byLid = {};
	var linksByPair = {};
	var findingsByNode = {};

	function push(map, k, v) {
		if (!map[k])
			map[k] = [];
		if (map[k].indexOf(v) < 0)
			map[k].push(v);
	}

	nodes.forEach(function (n) {
		push(byGuid, hex(n.guid), n);
	});
	/*
	 * Ports and cables are indexed when a search or a node's details first need them: on
	 * the 8,831-node fabric that is 46,000 ports and 23,000 cables, 0.7 s before the page
	 * would answer a wheel or a drag.
	 */
	var portsIndexed = false;
	function indexPorts() {
		if (portsIndexed)
			return;
		portsIndexed = true;
		nodes.forEach(function (n) {
			if (n.lid)
				push(byLid, n.lid, n);
			(n.ports || []).forEach(function (p) {
				if (p.guid)
					push(byPortGuid, hex(p.guid), n);
				if (p.lid)
					push(byLid, p.lid, n);
			});
		});
		(topo.links || []).forEach(function (l) {
			var a = hex(l.a.guid), b = hex(l.b.guid);
			push(linksByPair, a < b ? a + '-' + b : b + '-' + a, l);
		});
	}
	var findings = (health && health.findings) || [];
	findings.forEach(function (f, i) {
		if (f.node && f.node.guid)
			push(findingsByNode, hex(f.node.guid), i);
		if (f.peer && f.peer.guid)
			push(findingsByNode, hex(f.peer.guid), i);
	});
	var counters = {};

	function loadCounters() {
		if (ctrs !== undefined)
			return ctrs;
		ctrs = doc('ibs-counters');
		if (ctrs)
			(ctrs.ports_counters || []).forEach(function (c) {
				counters[hex(c.guid) + ':' + c.port] = c;
			});
		return ctrs;
	}

	var byIndex = {};
	nodes.forEach(function (n) {
		byIndex[n.index] = n;
	});

	function nodeByIndex(i) {
		return byIndex[i] || null;
	}

	var nodeId = {}, portId = {}, idNodes = {}, idPorts = {};
	if (drawn) {
		drawn.nodes.forEach(function (x) {
			nodeId[x.index] = x.id;
			push(idNodes, x.id, x.index);
		});
		drawn.ports.forEach(function (x) {
			portId[x.index + ':' + x.port] = x.id;
			push(idPorts, x.id, x.index + ':' + x.port);
		});
	}

	function oneByGuid(g) {
		var v = byGuid[hex(g)];
		return v ? v[0] : null;
	}

	/* A node's element: its own, or (a host drawn in a group) its leaf's group. */
	function nodeEl(n) {
		if (drawn)
			return nodeId[n.index] ? byId(nodeId[n.index]) : null;
		var e = byId('n-' + hex(n.guid));
		if (e || n.type === 'switch')
			return e;
		for (var i = 0; i < (n.ports || []).length; i++) {
			var p = n.ports[i];
			if (p.peer && (e = byId('g-' + hex(p.peer.guid))))
				return e;
		}
		return null;
	}

	/* A cable's element: drawn alone (a problem), or merged with its siblings. */
	function edgeEl(ga, pa, gb, pb) {
		var a = hex(ga), b = hex(gb), t, n = oneByGuid(ga);
		if (drawn)
			return n && portId[n.index + ':' + pa] ? byId(portId[n.index + ':' + pa]) : null;
		if (a > b || (a === b && pa > pb)) {
			t = a; a = b; b = t;
			t = pa; pa = pb; pb = t;
		}
		return byId('e-' + a + '-' + pa + '-' + b + '-' + pb) || byId('e-' + a + '-' + b);
	}

	/* A click on the map: a node, a host group or a cable shows its details. */
	function mapClick(target) {
		var g = target.closest ? target.closest('g.node, g.edge, g.cluster') : null;
		var m, v;
		if (!g || !g.id)
			return;
		if (drawn && idNodes[g.id]) {
			v = idNodes[g.id].map(nodeByIndex);
			if (v.length === 1 && g.id.indexOf('g-') !== 0)
				return select(v[0], g);
			unhighlight();
			highlight(g);
			return showGroup(g.id, v);
		}
		if (drawn && idPorts[g.id]) {
			unhighlight();
			highlight(g);
			return showCables(idPorts[g.id]);
		}
		if ((m = /^n-([0-9a-f]{16})$/.exec(g.id)) && (v = byGuid[m[1]]))
			return select(v[0], g);
		if ((m = /^e-([0-9a-f]{16})-(?:\d+-)?([0-9a-f]{16})(?:-\d+)?$/.exec(g.id))) {
			unhighlight();
			highlight(g);
			showCables(cablesBetween(m[1], m[2]));
		}
	}

	/* Every cable between two nodes, as "index:port" of one end. */
	function cablesBetween(a, b) {
		indexPorts();
		return (linksByPair[a < b ? a + '-' + b : b + '-' + a] || []).map(function (l) {
			return l.a.index + ':' + l.a.port;
		});
	}

	/* ---- details ---- */

	function nodeButton(n, port) {
		var b = el('button', { class: 'linklike', type: 'button' },
			   [n.name + (port !== undefined && port !== null ? ' [' + port + ']' : '')]);
		b.addEventListener('click', function () {
			select(n);
		});
		return b;
	}

	function peerButton(ref) {
		var n = ref ? (nodeByIndex(ref.index) || oneByGuid(ref.guid)) : null;
		if (!ref)
			return '-';
		return n ? nodeButton(n, ref.port) : ref.name + ' [' + ref.port + ']';
	}

	function kvTable(rows) {
		return el('table', { class: 'kv' }, rows.filter(function (r) {
			return r[1] !== null && r[1] !== undefined && r[1] !== '';
		}).map(function (r) {
			return el('tr', null, [el('th', null, [r[0]]), el('td', r[2] ? { class: r[2] } : null, [r[1]])]);
		}));
	}

	function hex4(v) {
		return v === null || v === undefined ? null : '0x' + Number(v).toString(16).padStart(4, '0');
	}

	function showNode(n, drawnAs) {
		clear(details);
		var where;
		if (!drawnAs)
			where = 'not drawn on the map';
		else if (drawnAs.id.indexOf('g-') === 0)
			where = 'in a group of hosts (' + drawnAs.id + ')';
		else
			where = 'drawn on its own (' + drawnAs.id + ')';
		details.appendChild(el('h2', null, [n.name]));
		details.appendChild(kvTable([
			['Type', n.type],
			['GUID', n.guid, 'mono'],
			['LID', n.lid],
			['Ports', n.num_ports],
			['Description', n.description !== n.name ? n.description : null],
			['System image', n.system_image_guid, 'mono'],
			['Vendor / device', hex4(n.vendor_id) + ' / ' + hex4(n.device_id), 'mono'],
			['Route', n.dr_path, 'mono'],
			['Error', n.error, 'bad'],
			['Map', where]
		]));

		details.appendChild(el('h3', null, ['Ports']));
		/* A switch's ports share port 0's LID and GUID; a CA's each have their own. */
		var own = n.type !== 'switch';
		var rows = (n.ports || []).filter(function (p) {
			return p.port !== 0 || !own;
		}).map(function (p) {
			var down = p.state && p.state !== 'Active';
			return el('tr', null, [
				el('td', { class: 'num' }, [p.port]),
				el('td', down ? { class: 'state-down' } : null, [p.state || '-',
					p.phys_state && p.phys_state !== 'LinkUp' ? ' (' + p.phys_state + ')' : '']),
				el('td', null, [p.width ? p.width + (p.speed || '') : '-']),
				own ? el('td', { class: 'num' }, [p.lid || '-']) : null,
				own ? el('td', { class: 'mono' }, [p.guid || '-']) : null,
				el('td', { class: 'peer' }, [p.port === 0 ? '' : peerButton(p.peer)])
			]);
		});
		details.appendChild(el('table', { class: 'ports' }, [
			el('thead', null, [el('tr', null, (own ? ['Port', 'State', 'Rate', 'LID', 'Port GUID', 'Peer']
							  : ['Port', 'State', 'Rate', 'Peer']).map(function (h) {
				return el('th', null, [h]);
			}))]),
			el('tbody', null, rows)
		]));

		details.appendChild(el('h3', null, ['Counters']));
		if (!loadCounters()) {
			details.appendChild(el('p', { class: 'placeholder' }, ['Not read for this report.']));
		} else {
			var crow = [];
			(n.ports || []).forEach(function (p) {
				var c = counters[hex(n.guid) + ':' + p.port];
				if (!c)
					return;
				var errs = Object.keys(c.counters || {}).filter(function (k) {
					return c.counters[k];
				}).map(function (k) {
					return k + ' ' + fmtNum(c.counters[k]);
				});
				crow.push(el('tr', null, [
					el('td', { class: 'num' }, [p.port]),
					el('td', errs.length || c.error ? { class: 'bad' } : null,
					   [c.error ? c.error : errs.length ? errs.join(', ') : 'none']),
					el('td', { class: 'num' }, [fmtNum(c.xmit_bytes)]),
					el('td', { class: 'num' }, [fmtNum(c.rcv_bytes)])
				]));
			});
			if (crow.length)
				details.appendChild(el('table', null, [
					el('thead', null, [el('tr', null, ['Port', 'Errors', 'Sent bytes', 'Received bytes'].map(function (h) {
						return el('th', null, [h]);
					}))]),
					el('tbody', null, crow)
				]));
			else
				details.appendChild(el('p', { class: 'placeholder' }, ['No port of this node answered.']));
		}

		var fi = findingsByNode[hex(n.guid)] || [];
		if (fi.length) {
			details.appendChild(el('h3', null, ['Findings']));
			details.appendChild(el('ul', null, fi.map(function (i) {
				var f = findings[i];
				return el('li', null, [el('span', { class: 'sev ' + f.severity }, [f.severity]), ' ', f.message]);
			})));
		}
	}

	/* The hosts drawn as one group: who they are, on which leaf port, at what rate. */
	function showGroup(id, hosts) {
		var rows = [];
		hosts.forEach(function (h) {
			(h.ports || []).forEach(function (p) {
				if (p.peer && p.port)
					rows.push(el('tr', null, [
						el('td', null, [nodeButton(h)]),
						el('td', { class: 'num' }, [h.lid || '-']),
						el('td', null, [peerButton(p.peer)]),
						el('td', null, [p.width ? p.width + (p.speed || '') : '-'])
					]));
			});
		});
		clear(details);
		/* Servers, not adapters: the CAs of one host share its system image GUID. */
		var servers = {};
		hosts.forEach(function (h) { servers[h.system_image_guid || h.guid] = true; });
		var nServers = Object.keys(servers).length;
		details.appendChild(el('h2', null, [nServers + (nServers === 1 ? ' host' : ' hosts') +
			(nServers !== hosts.length ? ' (' + hosts.length + ' CAs)' : '')]));
		details.appendChild(el('p', null, ['Drawn as one group (' + id + '): the hosts of one leaf at one rate.']));
		details.appendChild(el('table', null, [
			el('thead', null, [el('tr', null, ['Host', 'LID', 'Leaf port', 'Rate'].map(function (h) {
				return el('th', null, [h]);
			}))]),
			el('tbody', null, rows)
		]));
	}

	/* Cables, each named by one end "index:port": both ends, rate and state. */
	function showCables(ends) {
		var seen = {}, rows = [];
		ends.forEach(function (k) {
			var i = k.indexOf(':'), n = nodeByIndex(Number(k.slice(0, i))), pn = Number(k.slice(i + 1));
			var p = n && (n.ports || []).filter(function (x) {
				return x.port === pn;
			})[0];
			if (!p)
				return;
			var other = p.peer ? p.peer.index + ':' + p.peer.port : null;
			if (seen[k] || (other && seen[other]))
				return;
			seen[k] = true;
			var down = p.state !== 'Active';
			rows.push(el('tr', null, [
				el('td', null, [nodeButton(n, pn)]),
				el('td', null, [peerButton(p.peer)]),
				el('td', null, [p.width ? p.width + (p.speed || '') : '-']),
				el('td', down ? { class: 'state-down' } : null, [p.state || '-'])
			]));
		});
		clear(details);
		details.appendChild(el('h2', null, [rows.length + (rows.length === 1 ? ' cable' : ' cables')]));
		details.appendChild(el('table', null, [
			el('thead', null, [el('tr', null, ['End', 'Other end', 'Rate', 'State'].map(function (h) {
				return el('th', null, [h]);
			}))]),
			el('tbody', null, rows)
		]));
	}

	/* Show a node: highlighted and centred on the map, its details on the side. */
	function select(n, elem) {
		var e = elem || nodeEl(n);
		unhighlight();
		if (e) {
			highlight(e);
			focusEl(e);
		}
		showNode(n, e);
	}

	/* ---- search: name, GUID (node or port) or LID ---- */
	function search(q) {
		var out = [], seen = {};
		indexPorts();
		q = q.trim();
		if (!q)
			return out;
		function add(n, why) {
			if (seen[n.index])
				return;
			seen[n.index] = true;
			out.push({ node: n, why: why });
		}
		if (/^\d+$/.test(q))
			(byLid[Number(q)] || []).forEach(function (n) {
				add(n, 'LID ' + q);
			});
		var h = q.toLowerCase().replace(/^0x/, '');
		if (/^[0-9a-f]+$/.test(h) && h.length <= 16) {
			var full = hex(h);
			(byGuid[full] || []).forEach(function (n) {
				add(n, 'GUID');
			});
			(byPortGuid[full] || []).forEach(function (n) {
				add(n, 'port GUID');
			});
			if (h.length >= 4)
				nodes.forEach(function (n) {
					if (hex(n.guid).indexOf(h) >= 0)
						add(n, 'GUID');
				});
		}
		var lq = q.toLowerCase();
		nodes.forEach(function (n) {
			if (out.length < 500 && String(n.name).toLowerCase().indexOf(lq) >= 0)
				add(n, 'name');
		});
		return out;
	}

	/* ---- summary ---- */
	function stat(k, v) {
		return el('div', { class: 'stat' }, [el('span', { class: 'v' }, [v]), el('span', { class: 'k' }, [k])]);
	}

	function buildSummary() {
		var s = topo.summary, box = clear(document.getElementById('summary'));
		var master = (topo.sm.sms || []).filter(function (x) {
			return String(x.state).toLowerCase() === 'master';
		})[0];
		var sm = master ? master.name + ' (LID ' + master.lid + ')'
			: topo.sm.master_lid ? 'LID ' + topo.sm.master_lid : 'none found';
		var status = health ? health.status : 'UNKNOWN';
		var line = health && health.summary ? health.summary.split(' | ')[0].replace(/^IBSCAN \S+ - /, '') : '';
		var src = meta.source.kind === 'live' ? 'the live fabric through ' + meta.source.what
			: meta.source.kind === 'replay' ? 'the capture ' + meta.source.what
			: 'the ibnetdiscover cache ' + meta.source.what;
		box.appendChild(el('h1', null, ['ibscan report']));
		box.appendChild(stat('Nodes', fmtNum(s.nodes)));
		box.appendChild(stat('Switches', fmtNum(s.switches)));
		box.appendChild(stat('CAs', fmtNum(s.cas)));
		if (s.routers)
			box.appendChild(stat('Routers', fmtNum(s.routers)));
		box.appendChild(stat('Links', fmtNum(s.links)));
		box.appendChild(stat('Subnet manager', sm));
		box.appendChild(el('div', { class: 'stat', id: 'verdict' }, [
			el('span', { class: 'v' }, [el('span', { class: 'verdict ' + status }, [status]), ' ', line]),
			el('span', { class: 'k' }, ['Health'])
		]));
		box.appendChild(el('div', { class: 'meta' }, [
			'Taken ' + meta.generated.replace('T', ' ').replace('Z', ' UTC') + ' from ' + src + ' by ibscan ' +
			meta.ibscan + (meta.counters ? '; PMA counters read.' : '; PMA counters not read.')
		]));
		if (topo.partial)
			box.appendChild(el('div', { class: 'partial' }, [
				'Partial: the walk did not reach everything (' + (topo.errors || []).length + ' nodes or ports did not answer' +
				(topo.abort_reason ? '; stopped early: ' + topo.abort_reason : '') + ').'
			]));
		document.title = 'ibscan report: ' + s.nodes + ' nodes, ' + status;
	}

	/* ---- findings ---- */
	function where(f) {
		var out = [];
		if (f.node)
			out.push(f.node.name + (f.node.port !== null && f.node.port !== undefined ? ' [' + f.node.port + ']' : ''));
		if (f.peer)
			out.push(f.peer.name + (f.peer.port !== null && f.peer.port !== undefined ? ' [' + f.peer.port + ']' : ''));
		return out.join(' \u2194 ');
	}

	/* A credit loop's or forwarding loop's links (by node index and port), or null. */
	function cycleOf(f) {
		var g, i, v;
		if (!routesDoc || !f.node || !f.node.guid)
			return null;
		g = hex(f.node.guid);
		if (f.check === 'route.credit_loop') {
			v = routesDoc.credit_loops || [];
			for (i = 0; i < v.length; i++)
				if (v[i].links.length && hex(v[i].links[0].guid) === g && v[i].links[0].port === f.node.port)
					return v[i].links;
		} else if (f.check === 'route.loop') {
			v = routesDoc.loops || [];
			for (i = 0; i < v.length; i++)
				if (hex(v[i].guid) === g)
					return v[i].links;
		}
		return null;
	}

	/* The map's elements of a cycle's cables, each once. */
	function cycleEls(links) {
		var out = [];
		links.forEach(function (x) {
			var id = portId[x.index + ':' + x.port], e = id ? byId(id) : null;
			if (e && out.indexOf(e) < 0)
				out.push(e);
		});
		return out;
	}

	function selectFinding(i, tr) {
		var f = findings[i], e = null, n = null, cyc;
		document.querySelectorAll('#findings tr.sel').forEach(function (r) {
			r.classList.remove('sel');
		});
		tr.classList.add('sel');
		if (f.node && f.node.guid)
			n = oneByGuid(f.node.guid);
		cyc = cycleOf(f);
		if (cyc && drawn) {
			var els = cycleEls(cyc);
			if (els.length) {
				unhighlight();
				els.forEach(highlight);
				focusEl(els[0]);
				if (n)
					showNode(n, nodeEl(n));
				mapDiv.scrollIntoView({ block: 'nearest' });
				return;
			}
		}
		if (f.node && f.peer && f.node.guid && f.peer.guid && f.node.port !== null && f.peer.port !== null)
			e = edgeEl(f.node.guid, f.node.port, f.peer.guid, f.peer.port);
		if (!e && n)
			e = nodeEl(n);
		unhighlight();
		if (e) {
			highlight(e);
			focusEl(e);
		}
		if (n)
			showNode(n, e && e.id.indexOf('e-') === 0 ? nodeEl(n) : e);
		mapDiv.scrollIntoView({ block: 'nearest' });
	}

	function buildFindings() {
		var box = document.getElementById('findings');
		box.appendChild(el('h2', null, ['Findings (' + findings.length + ')']));
		if (!findings.length) {
			box.appendChild(el('p', null, ['None: every check passed.']));
			return;
		}
		var body = el('tbody', null, findings.map(function (f, i) {
			var tr = el('tr', { 'data-finding': i }, [
				el('td', { class: 'sev ' + f.severity }, [f.severity]),
				el('td', { class: 'mono' }, [f.check]),
				el('td', null, [where(f)]),
				el('td', null, [f.message])
			]);
			tr.addEventListener('click', function () {
				selectFinding(i, tr);
			});
			return tr;
		}));
		box.appendChild(el('table', null, [
			el('thead', null, [el('tr', null, ['Severity', 'Check', 'Where', 'Finding'].map(function (h) {
				return el('th', null, [h]);
			}))]),
			body
		]));
	}

	buildSummary();
	buildFindings();
	clear(details);
	details.appendChild(el('p', { class: 'placeholder' }, [
		'Click a node on the map, a search result or a finding to see its ports and counters.'
	]));
	if (svg)
		mapDiv.addEventListener('pointerover', function (ev) {
			var g = ev.target.closest ? ev.target.closest('g.node, g.edge, g.cluster') : null;
			var t;
			if (!g || !g.id || !Object.prototype.hasOwnProperty.call(tips, g.id) || g.querySelector(':scope > title'))
				return;
			t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
			t.textContent = tips[g.id];
			g.insertBefore(t, g.firstChild);
		});
	app.search = search;
	app.select = select;
	app.mapClick = mapClick;
	app.searchReady();
	report.select = select;
	report.search = search;
	report.doc = doc;
	report.ready = true;
	report.timing.ready = performance.now();
}
}());
