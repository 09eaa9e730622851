/*
 * Which map element draws a node, a cable or a loop's cables, and the
 * elements highlighted (the node, cable or loop shown).
 */

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
