'use strict';
// CommonJS on purpose: a plain `require` of a literal name runs on the first parse, not when
// the package is imported (mvdan-sh is 1.5 MB of JS, ~100 ms to load), stays synchronous
// (shellResources is), and is followed by every bundler (esbuild, webpack, Rollup/Vite).
/** @returns {unknown} the mvdan-sh module object */
exports.loadMvdanSh = function loadMvdanSh() {
  return require('mvdan-sh');
};
