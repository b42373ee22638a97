/** `require('mvdan-sh')`: its module object (the package ships no types; shell-syntax.ts reads it). */
export declare function loadMvdanSh(): unknown;
