/*
 * The findings' table: each finding where it was found, and a click on one
 * highlighting its cable, its node or every cable of its loop.
 */

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
