/*
 * The side panel: a node's details (ports, counters, findings), the hosts
 * of a group, the cables of an edge; what a click on the map shows there,
 * and selecting a node (highlighted, brought into view, detailed).
 */

var details = document.getElementById('details');

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
