;;; layoutd.el --- Ask layoutd how text lays out at a pixel width  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, text

;;; Commentary:

;; Talks to layoutd, the text layout daemon, with Emacs's own jsonrpc.el (which frames
;; messages with Content-Length headers, as LSP does; layoutd answers in kind).
;;
;; M-x layoutd-bubble-size shows how the region lays out in a chat bubble `layoutd-bubble-width'
;; points wide (C-u to give another width): its line count and height, as a chat client
;; using layoutd would size the bubble.  From Lisp, `layoutd-measure' and `layoutd-layout'
;; return the daemon's answers as plists; offsets are Emacs string indices (the connection
;; asks for UTF-32 offsets).
;;
;; The daemon is found as every layoutd client finds it: `layoutd-socket' when set, else
;; $LAYOUTD_SOCKET, else the first of $XDG_RUNTIME_DIR/layoutd/layoutd.sock,
;; /run/layoutd/layoutd.sock and /tmp/layoutd-$UID/layoutd.sock that accepts.

;;; Code:

(require 'jsonrpc)
(require 'seq)
(require 'subr-x)

(defgroup layoutd nil
  "Text layout by the layoutd daemon."
  :group 'tools)

(defcustom layoutd-socket nil
  "The daemon's socket; nil: the search order of every layoutd client."
  :type '(choice (const :tag "Search" nil) file))

(defcustom layoutd-bubble-width 280
  "Width in points of the text inside a message bubble, for `layoutd-bubble-size'."
  :type 'number)

(defcustom layoutd-bubble-font nil
  "Font of the bubble's text, as layoutd's `font' param.
For example (:family \"Noto Sans\" :size 15); nil: the daemon's default font."
  :type '(choice (const :tag "Daemon's default" nil) plist))

(defvar layoutd--connection nil
  "The live `jsonrpc-process-connection' to layoutd, or nil.")

(defun layoutd--candidates ()
  "The socket paths to try, in order."
  (cond (layoutd-socket (list layoutd-socket))
        ((and (getenv "LAYOUTD_SOCKET") (not (string-empty-p (getenv "LAYOUTD_SOCKET"))))
         (list (getenv "LAYOUTD_SOCKET")))
        (t (append (when (getenv "XDG_RUNTIME_DIR")
                     (list (expand-file-name "layoutd/layoutd.sock" (getenv "XDG_RUNTIME_DIR"))))
                   (list "/run/layoutd/layoutd.sock"
                         (format "/tmp/layoutd-%d/layoutd.sock" (user-uid)))))))

(defun layoutd--open (path)
  "A network process to the socket PATH, or nil when nothing accepts there."
  (ignore-errors
    (make-network-process :name "layoutd" :family 'local :service path
                          :coding 'utf-8-emacs-unix :noquery t)))

(defun layoutd-connection ()
  "The connection to layoutd, made (and initialized) when there is none."
  (unless (and layoutd--connection (jsonrpc-running-p layoutd--connection))
    (let* ((tried (layoutd--candidates))
           (process (seq-some #'layoutd--open tried)))
      (unless process
        (user-error "No layoutd reachable; tried %s" (string-join tried ", ")))
      (setq layoutd--connection
            (jsonrpc-process-connection :name "layoutd" :process process))
      (jsonrpc-request layoutd--connection :initialize
                       '(:offsetEncodings ["utf-32"] :client (:name "layoutd.el")))))
  layoutd--connection)

(defun layoutd--params (text width)
  "The layout params for TEXT at WIDTH points in `layoutd-bubble-font'."
  (append (list :text text :width width)
          (when layoutd-bubble-font (list :font layoutd-bubble-font))))

(defun layoutd-measure (text width)
  "How TEXT lays out at WIDTH points: layoutd's `measure' answer, a plist
\(:size (:width W :height H) :lineCount N :truncated BOOL ...)."
  (jsonrpc-request (layoutd-connection) :measure (layoutd--params text width)))

(defun layoutd-layout (text width &rest params)
  "TEXT laid out at WIDTH points, with more layout PARAMS (a plist).
Returns layoutd's answer: its `:lines' a vector of plists
\(:start :end :x :y :width :height :baseline ...)."
  (jsonrpc-request (layoutd-connection) :layout (append (layoutd--params text width) params)))

;;;###autoload
(defun layoutd-bubble-size (start end &optional width)
  "Show the line count and height of START..END in a bubble WIDTH points wide.
Interactively the region, at `layoutd-bubble-width' (asked with a prefix arg).
Returns the answer as a plist (:lines N :height H :width W)."
  (interactive
   (list (region-beginning) (region-end)
         (if current-prefix-arg (read-number "Bubble width (points): " layoutd-bubble-width)
           layoutd-bubble-width)))
  (let* ((width (or width layoutd-bubble-width))
         (answer (layoutd-measure (buffer-substring-no-properties start end) width))
         (size (plist-get answer :size))
         (lines (plist-get answer :lineCount)))
    (message "Bubble at %s pt: %d line%s, %.1f pt tall, %.1f pt wide" width lines (if (= lines 1) "" "s")
             (plist-get size :height) (plist-get size :width))
    (list :lines lines :height (plist-get size :height) :width (plist-get size :width))))

(defun layoutd-disconnect ()
  "Closes the connection to layoutd (the next request makes another)."
  (interactive)
  (when layoutd--connection
    (jsonrpc-shutdown layoutd--connection t)
    (setq layoutd--connection nil)))

(provide 'layoutd)
;;; layoutd.el ends here
