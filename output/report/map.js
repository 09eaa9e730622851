/*
 * The map: pan and zoom (wheel, drag, the toolbar's buttons), fitting it
 * to its box, bringing an element into view, and each element's tooltip
 * shown when first pointed at.
 */
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

/* The toolbar's zoom buttons and the hint. */
function mapButtons(bar) {
	[['+', 'Zoom in', function () { zoomCenter(1.5); }],
	 ['\u2212', 'Zoom out', function () { zoomCenter(1 / 1.5); }],
	 ['Fit', 'Show the whole map', fit]].forEach(function (b) {
		var btn = el('button', { type: 'button', title: b[1] }, [b[0]]);
		btn.addEventListener('click', b[2]);
		bar.appendChild(btn);
	});
	bar.appendChild(el('span', { class: 'hint' }, ['Drag to pan, wheel to zoom, click a node for details']));
}

/* Each element's tooltip (tips: by element id) shown as its title when the element is first pointed at. */
function mapTips(tips) {
	mapDiv.addEventListener('pointerover', function (ev) {
		var g = ev.target.closest ? ev.target.closest('g.node, g.edge, g.cluster') : null;
		var t;
		if (!g || !g.id || !Object.prototype.hasOwnProperty.call(tips, g.id) || g.querySelector(':scope > title'))
			return;
		t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
		t.textContent = tips[g.id];
		g.insertBefore(t, g.firstChild);
	});
}
