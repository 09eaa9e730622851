/*
 * The search: the toolbar's box and its list of answers (a query typed
 * while the documents are parsed is answered once they are), and which
 * nodes a query names by name, GUID (node or port) or LID.
 */

/* The search box and its answers' list, in bar. */
function buildSearch(bar) {
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
}

/* The nodes q names: by LID, by GUID (node or port, whole or 4 digits or more of it), by name. */
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
