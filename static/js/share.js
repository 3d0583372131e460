/* The results' copy buttons: the short link, the curl command and the JSON of the API request.
 * Without JavaScript (or without clipboard access) the buttons stay hidden and the text is there
 * to select; nothing else depends on this file.
 */
(function () {
  "use strict";

  function textOf(el) {
    return el.value !== undefined ? el.value : el.textContent;
  }

  function init() {
    if (!navigator.clipboard) {
      return;
    }
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.dataset.copy);
      if (!source) {
        return;
      }
      var label = button.textContent;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(textOf(source)).then(function () {
          button.textContent = button.dataset.copied || "✓";
          setTimeout(function () { button.textContent = label; }, 1500);
        });
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
