// MathJax 3 settings for the formulas written with pymdownx.arithmatex (generic mode).
// The MathJax bundle itself is served from this site (vendor/mathjax/), not another host.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

// MathJax typesets the page it loads with by itself. Material for MkDocs announces that
// first page on document$ too, and a second typeset racing the first one loses the
// glyphs' styles, so only pages swapped in later (instant navigation) are typeset here.
if (typeof document$ !== "undefined") {
  let first = true;
  document$.subscribe(() => {
    if (first) {
      first = false;
      return;
    }
    if (window.MathJax && MathJax.typesetPromise) {
      MathJax.startup.output.clearCache();
      MathJax.typesetClear();
      MathJax.texReset();
      MathJax.typesetPromise();
    }
  });
}
