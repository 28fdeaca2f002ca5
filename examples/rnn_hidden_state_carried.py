# A recurrent cell reads a sequence in chunks, and its hidden state is carried from one
# chunk to the next without detach(). The second chunk's loss backpropagates through the
# carried state into the first chunk's graph, which the first backward already freed.
# (Truncated backpropagation through time: `h = h.detach()` before each chunk.)
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 4)
readout = nn.Linear(4, 1)
opt = torch.optim.SGD(list(cell.parameters()) + list(readout.parameters()), lr=0.1)
series = torch.randn(2, 5, 3)           # two chunks of 5 time steps, 3 features
h = torch.zeros(1, 4)
for chunk in range(2):
    for x in series[chunk]:
        h = cell(x.unsqueeze(0), h)
    loss = readout(h).pow(2).mean()
    print(chunk, loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
