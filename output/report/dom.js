/*
 * The page's elements made from data, and the forms its values take: every
 * string from the fabric becomes a text node or an attribute (setAttribute),
 * never markup.
 */

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

function hex4(v) {
	return v === null || v === undefined ? null : '0x' + Number(v).toString(16).padStart(4, '0');
}
