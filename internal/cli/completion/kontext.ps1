# PowerShell completion for kontext, printed by `kontext completion powershell`.
# kontext itself works out what completes: this asks it, with the words
# before the cursor and the word being typed.

Register-ArgumentCompleter -Native -CommandName 'kontext', 'kontext.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $elements = @($commandAst.CommandElements)
    $program = $elements[0].Extent.Text
    $before = @()
    for ($i = 1; $i -lt $elements.Count; $i++) {
        $element = $elements[$i]
        # The word under the cursor is the one being completed.
        if ($element.Extent.EndOffset -ge $cursorPosition) { break }
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) {
            $before += $element.Value
        } else {
            $before += $element.Extent.Text
        }
    }
    $files = $false
    $results = @()
    # "--current=…" is never empty, so no PowerShell drops it.
    foreach ($line in @(& $program __complete "--current=$wordToComplete" -- @before 2>$null)) {
        if ($line -eq ':files' -or $line -eq ':dirs') { $files = $true; continue }
        if ($line -eq '') { continue }
        $value, $description = $line -split "`t", 2
        if (-not $description) { $description = $value }
        $results += [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $description)
    }
    # Nothing returned: PowerShell completes file names itself.
    if ($results.Count -eq 0 -and $files) { return }
    $results
}
