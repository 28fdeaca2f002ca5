# One training step of a small GAN. The discriminator's loss uses the generator's output
# as is, so d_loss.backward() also runs through the generator and frees its saved tensors;
# the generator's backward then needs them again. (Fix: D(fake.detach()) in d_loss.)
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 6), nn.Tanh(), nn.Linear(6, 3))
D = nn.Sequential(nn.Linear(3, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
bce = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)

real = torch.randn(4, 3) * 0.5 + 1.0
fake = G(torch.randn(4, 2))
d_loss = bce(D(real), torch.ones(4, 1)) + bce(D(fake), torch.zeros(4, 1))
opt_d.zero_grad()
d_loss.backward()
opt_d.step()
print("discriminator", d_loss)

g_loss = bce(D(fake), torch.ones(4, 1))
print("generator", g_loss)
opt_g.zero_grad()
g_loss.backward()
opt_g.step()
