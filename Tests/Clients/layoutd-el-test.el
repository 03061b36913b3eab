;;; layoutd-el-test.el --- clients/emacs/layoutd.el against layoutd  -*- lexical-binding: t -*-

;; Run by scripts/client-tests:
;;   LAYOUTD_SOCKET=PATH emacs --batch -L clients/emacs -l Tests/Clients/layoutd-el-test.el \
;;     -f ert-run-tests-batch-and-exit

(require 'ert)
(require 'layoutd)

(defconst layoutd-el-test--message
  "A long message that will not fit in two lines at this width")

(ert-deftest layoutd-el-bubble-size-of-the-region ()
  "The command measures the region at the bubble width and says so."
  (with-temp-buffer
    (insert "Before.\n" layoutd-el-test--message "\nAfter.")
    (let* ((start (progn (goto-char (point-min)) (forward-line 1) (point)))
           (end (line-end-position))
           (answer (let ((inhibit-message t)) (layoutd-bubble-size start end 120))))
      (should (equal (plist-get answer :lines) 4))
      (should (= (plist-get answer :height) 87.168))
      (should (<= (plist-get answer :width) 120))
      (should (string-match-p "Bubble at 120 pt: 4 lines, 87.2 pt tall"
                              (with-current-buffer "*Messages*" (buffer-string)))))))

(ert-deftest layoutd-el-bubble-font-and-one-line ()
  "`layoutd-bubble-font' reaches the daemon: a larger font, a taller line."
  (with-temp-buffer
    (insert "Hi!")
    (let ((plain (let ((inhibit-message t)) (layoutd-bubble-size (point-min) (point-max) 280)))
          (large (let ((layoutd-bubble-font '(:size 32)) (inhibit-message t))
                   (layoutd-bubble-size (point-min) (point-max) 280))))
      (should (equal (plist-get plain :lines) 1))
      (should (> (plist-get large :height) (* 1.8 (plist-get plain :height)))))))

(ert-deftest layoutd-el-layout-offsets-are-string-indices ()
  "Lines come back in Emacs string indices, past characters outside the BMP."
  (let* ((text "👍🏽 Grüße aus Köln, Ünal!")
         (lines (append (plist-get (layoutd-layout text 100) :lines) nil)))
    (should (equal (plist-get (car (last lines)) :end) (length text)))
    (should (equal (substring text 0 (plist-get (car lines) :end)) "👍🏽 Grüße "))))

(ert-deftest layoutd-el-no-daemon ()
  "Without a daemon, a clear error names what was tried."
  (let ((layoutd-socket "/nonexistent/layoutd.sock") (layoutd--connection nil))
    (should (string-match-p "No layoutd reachable; tried /nonexistent/layoutd.sock"
                            (cadr (should-error (layoutd-measure "x" 10) :type 'user-error))))))

;;; layoutd-el-test.el ends here
