/*
 * The summary at the top: the fabric's counts, its subnet manager, the
 * health verdict, where and when the report was taken, and whether the
 * walk was partial.
 */

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
