/*
 * The page's documents (written by output/report.c), inflated, parsed and
 * indexed: nodes by GUID, port GUID, LID and index, cables by their two
 * nodes, findings by node, counters by port, and the map's element of
 * each node and cabled port.
 */

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

/* The documents' texts once inflated, by element id; the others are read as they stand. */
var texts = {};

function doc(id) {
	var e = document.getElementById(id);
	if (!e)
		return null;
	return JSON.parse(texts[id] !== undefined ? texts[id] : e.textContent);
}

/* The documents, parsed by indexModel; the counters (ctrs) when first shown (loadCounters). */
var meta, topo, health, ctrs, drawn, routesDoc, tips;
var nodes;
var byGuid = {};   /* hex GUID -> [node] (a duplicate GUID is two nodes) */
var byPortGuid = {};
var byLid = {};
var linksByPair = {};
var findingsByNode = {};
var findings = [];
var counters = {};   /* "hex GUID:port" -> the port's counters */
var byIndex = {};
/* The map's element ids: of each node by index and cabled port by "index:port", and back. */
var nodeId = {}, portId = {}, idNodes = {}, idPorts = {};

function push(map, k, v) {
	if (!map[k])
		map[k] = [];
	if (map[k].indexOf(v) < 0)
		map[k].push(v);
}

/* The documents parsed and indexed (the ports and cables wait for indexPorts). */
function indexModel() {
	meta = doc('ibs-meta');
	topo = doc('ibs-topology');
	health = doc('ibs-health');
	/* The counters are parsed when first shown: a large fabric's page opens sooner. */
	ctrs = meta.counters ? undefined : null;
	/* Which map element each node and each cabled port is drawn as (output/draw.h). */
	drawn = doc('ibs-map');
	/* report --routing: the links of each credit loop and forwarding loop (output/report_routes.c). */
	routesDoc = doc('ibs-routes');
	/* The map's tooltips, by element id (output/report_svg.c): each shown as its element's title when first pointed at. */
	tips = doc('ibs-tips') || {};
	nodes = topo.nodes;
	nodes.forEach(function (n) {
		push(byGuid, hex(n.guid), n);
	});
	findings = (health && health.findings) || [];
	findings.forEach(function (f, i) {
		if (f.node && f.node.guid)
			push(findingsByNode, hex(f.node.guid), i);
		if (f.peer && f.peer.guid)
			push(findingsByNode, hex(f.peer.guid), i);
	});
	nodes.forEach(function (n) {
		byIndex[n.index] = n;
	});
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
}

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

function nodeByIndex(i) {
	return byIndex[i] || null;
}

function oneByGuid(g) {
	var v = byGuid[hex(g)];
	return v ? v[0] : null;
}

/* Every cable between two nodes, as "index:port" of one end. */
function cablesBetween(a, b) {
	indexPorts();
	return (linksByPair[a < b ? a + '-' + b : b + '-' + a] || []).map(function (l) {
		return l.a.index + ':' + l.a.port;
	});
}
