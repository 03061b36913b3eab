;;; jsonrpc-el-test.el --- Emacs's own jsonrpc.el against layoutd, as it is  -*- lexical-binding: t -*-

;; Run by scripts/client-tests:
;;   LAYOUTD_SOCKET=PATH emacs --batch -l Tests/Clients/jsonrpc-el-test.el -f ert-run-tests-batch-and-exit
;; jsonrpc.el frames messages as the LSP base protocol does (Content-Length headers); layoutd
;; answers in kind (docs/protocol.md, "Framing").

(require 'ert)
(require 'jsonrpc)

(defun layoutd-test--connect ()
  "A `jsonrpc-process-connection' to the layoutd at $LAYOUTD_SOCKET."
  (let ((path (or (getenv "LAYOUTD_SOCKET") (error "LAYOUTD_SOCKET is not set"))))
    (jsonrpc-process-connection
     :name "layoutd-test"
     :process (make-network-process :name "layoutd-test" :family 'local :service path
                                    :coding 'utf-8-emacs-unix :noquery t))))

(defmacro layoutd-test--with-connection (var &rest body)
  "Runs BODY with VAR a fresh connection, shut down afterwards."
  (declare (indent 1))
  `(let ((,var (layoutd-test--connect)))
     (unwind-protect (progn ,@body)
       (jsonrpc-shutdown ,var t))))

(defconst layoutd-test--text "Grüße aus Köln, Ünal!")

(ert-deftest layoutd-jsonrpc-el-layout-measure-hit-test ()
  "Lays out, measures and hit-tests a paragraph; offsets are Emacs string indices (UTF-32)."
  (layoutd-test--with-connection conn
    (let ((init (jsonrpc-request conn :initialize '(:offsetEncodings ["utf-32"] :client (:name "ert")))))
      (should (equal (plist-get init :offsetEncoding) "utf-32"))
      (should (equal (plist-get (plist-get init :server) :name) "layoutd")))
    (let* ((layout (jsonrpc-request conn :layout `(:text ,layoutd-test--text :width 100 :retain t)))
           (lines (append (plist-get layout :lines) nil))
           (handle (plist-get layout :handle)))
      (should (equal (mapcar (lambda (l) (list (plist-get l :start) (plist-get l :end))) lines)
                     '((0 10) (10 21))))
      (should (equal (substring layoutd-test--text 0 (plist-get (car lines) :end)) "Grüße aus "))
      (should (> (plist-get (cadr lines) :baseline) (plist-get (car lines) :baseline)))
      (let ((measure (jsonrpc-request conn :measure `(:text ,layoutd-test--text :width 100))))
        (should (= (plist-get measure :lineCount) 2))
        (should (= (plist-get (plist-get measure :size) :height)
                   (plist-get (plist-get layout :size) :height))))
      (let ((hit (jsonrpc-request conn :hitTest `(:handle ,handle :x 30 :y 30))))
        (should (= (plist-get hit :line) 1))
        (should (= (plist-get hit :index) 14))
        (should (= (plist-get hit :character) 13))
        (should (equal (substring layoutd-test--text 13 14) "n"))))))

(ert-deftest layoutd-jsonrpc-el-error ()
  "A JSON-RPC error reaches jsonrpc.el as its `jsonrpc-error', code and field intact."
  (layoutd-test--with-connection conn
    (let ((err (should-error (jsonrpc-request conn :layout '(:text "x" :width -1)) :type 'jsonrpc-error)))
      (should (equal (alist-get 'jsonrpc-error-code (cdr err)) -32602))
      (should (string-match-p "`width' must not be negative\\|`width` must not be negative"
                              (alist-get 'jsonrpc-error-message (cdr err)))))))

;;; jsonrpc-el-test.el ends here
